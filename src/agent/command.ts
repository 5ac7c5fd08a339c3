/**
 * The command that continues a written session: `claude --resume {sessionId}` unless config.json says otherwise
 *   { "resume": { "command": ["claude", "--resume", "{sessionId}"] } }
 * (a list, or one command line split like a shell splits words, with no expansion; `{sessionId}`, `{sessionFile}`
 * and `{cwd}` are replaced in every argument). It runs without a shell; its program is looked up on PATH before
 * anything is written, so a missing `claude` refuses the resume instead of leaving a file behind.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { AskError, readConfig, splitArgv } from '../ask/index.js';
import { shellPath, shellQuote } from '../text/shell.js';

export { shellPath, shellQuote };

export const DEFAULT_COMMAND: readonly string[] = ['claude', '--resume', '{sessionId}'];

const RESUME_KEYS = ['command'];

export interface ResumeConfig {
  /** The config file looked at (whether or not it exists). */
  path: string;
  /** The argv template; `fromConfig` is false for the default. */
  command: string[];
  fromConfig: boolean;
}

/** The `resume` section of $ARBORIST_HOME/config.json (other sections belong to other modules). */
export function loadResumeConfig(env: NodeJS.ProcessEnv = process.env): ResumeConfig {
  const { path, doc } = readConfig(env);
  const section = doc.resume;
  const out: ResumeConfig = { path, command: [...DEFAULT_COMMAND], fromConfig: false };
  if (section === undefined) return out;
  if (section === null || typeof section !== 'object' || Array.isArray(section))
    throw new AskError('config', `${path}: "resume" must be an object`);
  const r = section as Record<string, unknown>;
  for (const k of Object.keys(r))
    if (!RESUME_KEYS.includes(k))
      throw new AskError('config', `${path}: unknown setting resume.${k} (known: ${RESUME_KEYS.join(', ')})`);
  const c = r.command;
  if (c === undefined) return out;
  let argv: string[];
  if (typeof c === 'string') argv = splitArgv(c, `${path}: resume.command`);
  else if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) argv = [...c];
  else
    throw new AskError(
      'config',
      `${path}: resume.command must be a command line or a non-empty list of strings`,
    );
  if (argv.length === 0 || argv[0] === '')
    throw new AskError('config', `${path}: resume.command names no program`);
  return { path, command: argv, fromConfig: true };
}

export interface Placeholders {
  sessionId: string;
  sessionFile: string;
  cwd: string;
}

/** The template with `{sessionId}`, `{sessionFile}` and `{cwd}` replaced in every argument (others kept). */
export function fillCommand(template: readonly string[], p: Placeholders): string[] {
  return template.map((a) =>
    a.replace(/\{(sessionId|sessionFile|cwd)\}/g, (_, k: keyof Placeholders) => p[k]),
  );
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where `program` would be run from: itself (made absolute against `base`) when it names a path, else the first
 * executable file of that name in PATH. Null when there is none.
 */
export function findExecutable(program: string, env: NodeJS.ProcessEnv, base = process.cwd()): string | null {
  if (program === '') return null;
  if (program.includes('/')) {
    const p = isAbsolute(program) ? program : resolve(base, program);
    return isExecutableFile(p) ? p : null;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // a relative PATH entry would depend on where we run
    const p = join(dir, program);
    if (isExecutableFile(p)) return p;
  }
  return null;
}

/**
 * The command as a line to paste into a shell: `cd -P CWD && PROGRAM ARGS...`, each word quoted. -P: the folder
 * the kernel resolves (as the agent is run here), not one with `..` taken off the path's text.
 */
export function commandLine(argv: readonly string[], cwd?: string): string {
  const cmd = argv.map(shellQuote).join(' ');
  return cwd === undefined ? cmd : `cd -P ${shellPath(cwd)} && ${cmd}`;
}
