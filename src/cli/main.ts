import { ArboristError, asArboristError } from '../store/index.js';
import { closest } from '../text/suggest.js';
import { commandFirst, parse } from './args.js';
import type { Command } from './command.js';
import { archiveCmd } from './commands/archive.js';
import { askCmd } from './commands/ask.js';
import { chainCheckCmd, checkCmd, verifyCmd } from './commands/chain.js';
import { entryCmd } from './commands/entries.js';
import { exportCmd } from './commands/export.js';
import { findCmd } from './commands/find.js';
import { importCmd } from './commands/import.js';
import { keepCmd } from './commands/keep.js';
import { deleteCmd, maintainCmd, resetCmd } from './commands/maintain.js';
import { mcpCmd } from './commands/mcp.js';
import { newCmd } from './commands/new.js';
import { branchesCmd, listCmd, pathCmd, showCmd, treeCmd } from './commands/read.js';
import { resumeCmd } from './commands/resume.js';
import { statusCmd } from './commands/status.js';
import { syncCmd } from './commands/sync.js';
import { makeContext } from './context.js';
import { commandHelp, wrapHelp } from './help.js';
import { sessionCmd } from './repl/index.js';
import { runEntry } from './report.js';
import { BROWSER_OPTIONS, demoCmd, openBrowser } from './tui.js';

const VERSION = '0.1.0';

/** Every command, in the order `arborist --help` lists them. */
const ALL: Command[] = [
  newCmd,
  listCmd,
  showCmd,
  treeCmd,
  pathCmd,
  branchesCmd,
  exportCmd,
  findCmd,
  chainCheckCmd,
  verifyCmd,
  checkCmd,
  statusCmd,
  askCmd,
  sessionCmd,
  entryCmd,
  resetCmd,
  deleteCmd,
  archiveCmd,
  maintainCmd,
  importCmd,
  keepCmd,
  syncCmd,
  resumeCmd,
  mcpCmd,
  demoCmd,
];

function help(): string {
  const lines = [
    'arborist: browse, search and fork a tamper-evident tree of AI conversation turns',
    '',
    'usage: arborist [--db PATH] [--mouse] [--answer-cmd CMD] [--keys FILE]',
    '                                       open the full-screen browser (keys: docs/keys.md, ? inside)',
    '       arborist COMMAND [options]      (every command takes --db PATH and --json, before or after it)',
    "       arborist help COMMAND           a command's options (the same as arborist COMMAND --help)",
    '',
    'commands:',
    ...ALL.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`),
    '',
    'The shard is --db PATH, else $ARBORIST_DB, else $ARBORIST_HOME/sessions.db (default ~/.arborist/sessions.db).',
    'Exit codes: 0 success, 1 a check found damage (or an import skipped records), 2 bad usage, bad input, unknown id or unusable shard, 70 a bug in arborist.',
  ];
  return wrapHelp(`${lines.join('\n')}\n`);
}

/** A word that is no command, with the one it most likely meant when there is one (`lsit`: list). */
function unknownCommand(word: string): ArboristError {
  const near = closest(
    word,
    ALL.map((c) => c.name),
  );
  const hint = near === undefined ? '' : `did you mean '${near}'? `;
  return new ArboristError('usage', `unknown command '${word}' (${hint}see arborist --help)`);
}

export async function main(given: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const argv = commandFirst(given);
  const first = argv[0];
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // `arborist help [COMMAND]`, as git and npm take it: the same text as --help.
  if (first === 'help') {
    const named = argv[1] !== undefined && !argv[1].startsWith('-') ? argv[1] : undefined;
    const of = named === undefined ? undefined : ALL.find((c) => c.name === named);
    if (named !== undefined && of === undefined) throw unknownCommand(named);
    process.stdout.write(of ? commandHelp(of) : help());
    return 0;
  }
  const cmd = ALL.find((c) => c.name === first);
  if (cmd === undefined && first !== undefined && !first.startsWith('-')) throw unknownCommand(first);
  const p = parse(cmd ? argv.slice(1) : argv, cmd ? cmd.options : BROWSER_OPTIONS, cmd?.name);
  if (p.values.help) {
    process.stdout.write(cmd ? commandHelp(cmd) : help());
    return 0;
  }
  const ctx = makeContext(p, env);
  try {
    if (cmd) return await cmd.run(p, ctx);
    if (p.positionals.length > 0)
      throw new ArboristError('usage', `unexpected argument '${p.positionals[0]}'`);
    return await openBrowser(p, ctx);
  } catch (err) {
    // SQLite's own errors met mid-query (a corrupt page, a full disk, a lock) are said as one line of ours.
    throw asArboristError(ctx.dbPath, err) ?? err;
  } finally {
    try {
      ctx.close();
    } catch {
      // closing a damaged shard can fail too; the error that matters was already thrown
    }
  }
}

const argv = process.argv.slice(2);
runEntry('main', argv, () => main(argv));
