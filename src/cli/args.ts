import { type ParseArgsConfig, parseArgs } from 'node:util';
// errors.js, not index.js: the status bundle (status-main.ts) must not pull in the whole store through here.
import { ArboristError } from '../store/light.js';
import { closest } from '../text/suggest.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Options every command takes. */
export const GLOBAL_OPTIONS: OptionSpec = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  'no-color': { type: 'boolean' },
  // synchronous=FULL: each commit is on disk before the command returns (docs/sessions.md, "Durability").
  durable: { type: 'boolean' },
};

/**
 * `arborist --db X list` as `arborist list --db X`: the options every command takes may come before the command, as
 * with git. The command word moves to the front. bin/arborist does the same before it picks a bundle (it loads no
 * module first); tests/cli/browser-bundle.test.ts checks that the two answer alike.
 */
export function commandFirst(argv: readonly string[]): string[] {
  let i = 0;
  while (i < argv.length) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2).split('=')[0] : '';
    const o = name === 'help' ? undefined : GLOBAL_OPTIONS[name];
    if (o === undefined) break;
    i += o.type === 'string' && !argv[i].includes('=') ? 2 : 1;
  }
  if (i === 0 || i >= argv.length || argv[i].startsWith('-')) return [...argv];
  return [argv[i], ...argv.slice(0, i), ...argv.slice(i + 1)];
}

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * util.parseArgs with strict checking; its errors become one usage line. `command` names the command whose help
 * an unknown option points to (none: the browser's, `arborist --help`).
 */
export function parse(argv: string[], options: OptionSpec, command?: string): Parsed {
  try {
    const r = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: r.values as Parsed['values'], positionals: r.positionals };
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0].replace(/\. To specify a positional.*$/, '');
    // Node's own words for a missing value ("argument is ambiguous", "<value>' argument missing") leave a user
    // guessing; its hint was on a later line, dropped above.
    const ambiguous = /^Option '(-[^' ]+)' argument is ambiguous/.exec(msg);
    if (ambiguous) {
      const o = ambiguous[1];
      const hint = o.startsWith('--') ? ` (one starting with '-' is written ${o}=-X)` : '';
      throw new ArboristError('usage', `${o} needs a value${hint}`);
    }
    const missing = /^Option '(?:-[^-' ], )?(-[^' ]+) <value>' argument missing/.exec(msg);
    if (missing) throw new ArboristError('usage', `${missing[1]} needs a value`);
    const unknown = /^Unknown option '(-[^']*)'/.exec(msg);
    if (unknown) throw unknownOption(unknown[1], { ...GLOBAL_OPTIONS, ...options }, command);
    throw new ArboristError('usage', msg);
  }
}

/** An option the command does not take, with the one it most likely meant (`--limt`: --limit) and its help. */
function unknownOption(given: string, options: OptionSpec, command: string | undefined): ArboristError {
  const name = given.replace(/^--?/, '');
  const near = given.startsWith('--') && name.length > 1 ? closest(name, Object.keys(options)) : undefined;
  const hint = near === undefined ? '' : `did you mean --${near}? `;
  const help = command === undefined ? 'arborist --help' : `arborist ${command} --help`;
  return new ArboristError('usage', `unknown option '${given}' (${hint}see ${help})`);
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function flag(p: Parsed, name: string): boolean {
  return p.values[name] === true;
}

export function list(p: Parsed, name: string): string[] {
  const v = p.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function positiveInt(p: Parsed, name: string, fallback: number, max = 100000): number {
  const v = str(p, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) {
    throw new ArboristError('usage', `--${name} takes a whole number from 1 to ${max}`);
  }
  return Number(v);
}

export function exactPositionals(p: Parsed, n: number, usage: string): string[] {
  if (p.positionals.length !== n) throw new ArboristError('usage', `usage: ${usage}`);
  return p.positionals;
}

export function usageError(usage: string): ArboristError {
  return new ArboristError('usage', `usage: ${usage}`);
}

/** The one positional a sub-command takes (after its sub-command word). */
export function one(rest: string[], usage: string): string {
  if (rest.length !== 1) throw usageError(usage);
  return rest[0];
}

/** Refuses options that belong to another sub-command, so a misplaced flag is not silently ignored. */
export function only(p: Parsed, all: string[], allowed: string[], sub: string): void {
  for (const name of all) {
    if (!allowed.includes(name) && p.values[name] !== undefined) {
      throw new ArboristError('usage', `${sub} does not take --${name}`);
    }
  }
}

export function need(p: Parsed, name: string, usage: string): string {
  const v = str(p, name);
  if (v === undefined) throw usageError(usage);
  return v;
}

/** "30d", "12h", "90m", "45s", "2w", "500ms" -> milliseconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(s.trim());
  const unit: Record<string, number> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };
  // Zero is a duration: `--older-than 0d` means everything.
  if (!m) {
    throw new ArboristError('usage', `'${s}' is not a duration (a number and ms, s, m, h, d or w: 30d, 12h)`);
  }
  return Math.round(Number(m[1]) * unit[m[2]]);
}

/**
 * "500M", "2G", "100KB", "1.5GiB", "4096" -> bytes. K, M, G and T are powers of 1024 however written (K, KB, KiB):
 * the sizes it is compared with are printed in KiB and MiB (docs/sessions.md, "Retention").
 */
export function parseSize(s: string): number {
  const units = 'K, M, G or T, powers of 1024: 500M, 2G, 1.5GiB';
  // A 400-digit "size" is quoted cut short: the reason must survive report's 300-character line.
  const quoted = s.length > 40 ? `${s.slice(0, 40)}…` : s;
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?$/i.exec(s.trim());
  if (!m || (m[3] !== undefined && m[3].toLowerCase() === 'ib' && m[2] === ''))
    throw new ArboristError('usage', `'${quoted}' is not a size (bytes, or a number with ${units})`);
  const pow = ' kmgt'.indexOf((m[2] || ' ').toLowerCase());
  const bytes = Math.round(Number(m[1]) * 1024 ** pow);
  if (!Number.isSafeInteger(bytes))
    throw new ArboristError('usage', `'${quoted}' is too large a size (bytes, or a number with ${units})`);
  return bytes;
}
