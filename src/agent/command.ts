/**
 * The command that continues a written session: the agent's own (`claude --resume {sessionId}`, `codex resume
 * {sessionId}`, ...: the adapters) unless config.json says otherwise, per agent:
 *   { "resume": { "codex": { "command": ["codex", "resume", "{sessionId}"] }, "claude": { "command": [...] } } }
 * and, as before there were other agents, `resume.command` for Claude Code. A list, or one command line split
 * like a shell splits words, with no expansion; `{sessionId}`, `{sessionFile}` and `{cwd}` are replaced in every
 * argument. It runs without a shell; its program is looked up on PATH before anything is written, so a missing
 * program refuses the resume instead of leaving a file behind.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { AskError, readConfig, splitArgv } from '../ask/index.js';
import type { SourceKind } from '../import/model.js';
import { shellPath, shellQuote } from '../text/shell.js';
import { RESUMING_KINDS } from './adapters.js';
import { claudeResume } from './claude.js';

export { shellPath, shellQuote };

/** Claude Code's command, the default `resume.command` stands for. */
export const DEFAULT_COMMAND: readonly string[] = claudeResume.command;

export interface ResumeConfig {
  /** The config file looked at (whether or not it exists). */
  path: string;
  /** The argv template; `fromConfig` is false for the agent's default. */
  command: string[];
  fromConfig: boolean;
  /** The setting that holds it, for messages: `resume.codex.command`, `resume.command`. */
  setting: string;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function argvOf(c: unknown, path: string, setting: string): string[] {
  let argv: string[];
  if (typeof c === 'string') argv = splitArgv(c, `${path}: ${setting}`);
  else if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) argv = [...c];
  else
    throw new AskError('config', `${path}: ${setting} must be a command line or a non-empty list of strings`);
  if (argv.length === 0 || argv[0] === '')
    throw new AskError('config', `${path}: ${setting} names no program`);
  return argv;
}

/**
 * The `resume` section of $ARBORIST_HOME/config.json for `agent` (other sections belong to other modules). The
 * whole section is checked whichever agent is asked for, so a mistake is found the first time, not on the day
 * that agent is resumed.
 */
export function loadResumeConfig(
  env: NodeJS.ProcessEnv = process.env,
  agent: SourceKind = 'claude',
  fallback: readonly string[] = DEFAULT_COMMAND,
): ResumeConfig {
  const { path, doc } = readConfig(env);
  const section = doc.resume;
  const own = `resume.${agent}.command`;
  const out: ResumeConfig = { path, command: [...fallback], fromConfig: false, setting: own };
  if (section === undefined) return out;
  if (!isObj(section)) throw new AskError('config', `${path}: "resume" must be an object`);
  const known = ['command', ...RESUMING_KINDS];
  for (const k of Object.keys(section))
    if (!known.includes(k))
      throw new AskError('config', `${path}: unknown setting resume.${k} (known: ${known.join(', ')})`);
  const found = new Map<string, string[]>();
  if (section.command !== undefined) found.set('claude', argvOf(section.command, path, 'resume.command'));
  for (const k of RESUMING_KINDS) {
    const sub = section[k];
    if (sub === undefined) continue;
    if (!isObj(sub)) throw new AskError('config', `${path}: resume.${k} must be an object`);
    for (const key of Object.keys(sub))
      if (key !== 'command')
        throw new AskError('config', `${path}: unknown setting resume.${k}.${key} (known: command)`);
    if (sub.command === undefined) continue;
    if (found.has(k))
      throw new AskError('config', `${path}: resume.command and resume.${k}.command both set: keep one`);
    found.set(k, argvOf(sub.command, path, `resume.${k}.command`));
  }
  const argv = found.get(agent);
  if (argv === undefined) return out;
  const setting = agent === 'claude' && section.command !== undefined ? 'resume.command' : own;
  return { path, command: argv, fromConfig: true, setting };
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
