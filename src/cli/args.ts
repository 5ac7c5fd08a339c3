import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ArboristError } from '../store/index.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Options every command takes. */
export const GLOBAL_OPTIONS: OptionSpec = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  'no-color': { type: 'boolean' },
};

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** util.parseArgs with strict checking; its errors become one usage line. */
export function parse(argv: string[], options: OptionSpec): Parsed {
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
    throw new ArboristError('usage', msg);
  }
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
