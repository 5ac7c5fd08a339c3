import { readConfigFile } from '../config/index.js';
import { ArboristError } from '../store/index.js';
import { splitArgv } from './argv.js';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from './command.js';
import { AskError } from './errors.js';
import type { ProviderSpec } from './types.js';

/**
 * The `answer` section of `$ARBORIST_HOME/config.json` (other sections belong to other modules and are ignored):
 *   { "answer": { "command": "llm -m 4o" | ["llm", "-m", "4o"], "timeout_ms": 120000, "max_bytes": 1048576 } }
 */
export interface AnswerConfig {
  /** The file the settings came from (whether or not it exists). */
  path: string;
  command?: string[];
  timeoutMs?: number;
  maxBytes?: number;
}

const ANSWER_KEYS = ['command', 'timeout_ms', 'max_bytes'];

function positiveInt(path: string, key: string, v: unknown, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new AskError('config', `${path}: answer.${key} must be a whole number from 1 to ${max}`);
  }
  return v;
}

/** config.json (src/config), its errors as asking's own ('config'). */
export function readConfig(env: NodeJS.ProcessEnv = process.env): {
  path: string;
  doc: Record<string, unknown>;
} {
  try {
    return readConfigFile(env);
  } catch (err) {
    if (err instanceof ArboristError) throw new AskError('config', err.message);
    throw err;
  }
}

/** Reads the answer settings. A missing file is no settings; an unreadable or malformed one is a one-line error. */
export function loadAnswerConfig(env: NodeJS.ProcessEnv = process.env): AnswerConfig {
  const { path, doc } = readConfig(env);
  const answer = doc.answer;
  if (answer === undefined) return { path };
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
    throw new AskError('config', `${path}: "answer" must be an object`);
  }
  const a = answer as Record<string, unknown>;
  for (const k of Object.keys(a)) {
    if (!ANSWER_KEYS.includes(k)) {
      throw new AskError('config', `${path}: unknown setting answer.${k} (known: ${ANSWER_KEYS.join(', ')})`);
    }
  }
  const out: AnswerConfig = { path };
  if (a.command !== undefined) {
    if (typeof a.command === 'string') out.command = splitArgv(a.command, `${path}: answer.command`);
    else if (
      Array.isArray(a.command) &&
      a.command.length > 0 &&
      a.command.every((x) => typeof x === 'string') &&
      a.command[0] !== ''
    ) {
      out.command = [...(a.command as string[])];
    } else {
      throw new AskError(
        'config',
        `${path}: answer.command must be a command line or a non-empty list of strings`,
      );
    }
  }
  if (a.timeout_ms !== undefined) out.timeoutMs = positiveInt(path, 'timeout_ms', a.timeout_ms, 86_400_000);
  if (a.max_bytes !== undefined)
    out.maxBytes = positiveInt(path, 'max_bytes', a.max_bytes, 1024 * 1024 * 1024);
  return out;
}

export interface ProviderOptions {
  /** `--answer TEXT`: a manual answer. */
  answer?: string;
  /** `--answer-cmd "CMD ARGS"`: split like a shell would split words, with no expansion. */
  answerCmd?: string;
  /** Where ARBORIST_HOME comes from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Overrides of the config file's limits. */
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * The provider for the CLI's (and TUI's) options: `--answer` -> manual; `--answer-cmd` -> that command;
 * else `answer.command` in config.json -> that command; else the built-in answerer. Timeouts and size caps come
 * from the options, else config.json, else 120 s and 1 MiB. The config file is read only when it can matter
 * (never for --answer), so a broken config never blocks a manual answer.
 */
export function providerFromOptions(opts: ProviderOptions = {}): ProviderSpec {
  if (opts.answer !== undefined && opts.answerCmd !== undefined) {
    throw new AskError('config', '--answer and --answer-cmd cannot be used together');
  }
  if (opts.answer !== undefined) return { kind: 'manual', answer: opts.answer };
  const argv = opts.answerCmd !== undefined ? splitArgv(opts.answerCmd, '--answer-cmd') : undefined;
  const cfg = loadAnswerConfig(opts.env ?? process.env);
  const command = argv ?? cfg.command;
  if (!command) return { kind: 'builtin' };
  return {
    kind: 'command',
    argv: command,
    timeoutMs: opts.timeoutMs ?? cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: opts.maxBytes ?? cfg.maxBytes ?? DEFAULT_MAX_BYTES,
  };
}
