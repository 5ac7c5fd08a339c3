import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProviderSpec } from '../../src/ask/index.js';
import type { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const CAPTURE = join(FIXTURES, 'capture.mjs');

/** The capture script as an answer command: stdin goes to `out`, each run adds a byte to `counter`. */
export function capture(out = '-', counter = '-', extra: Partial<ProviderSpec> = {}): ProviderSpec {
  return { kind: 'command', argv: [process.execPath, CAPTURE, out, counter], ...extra } as ProviderSpec;
}

/** A node one-liner as an answer command. */
export function nodeCmd(code: string, opts: { timeoutMs?: number; maxBytes?: number } = {}): ProviderSpec {
  return { kind: 'command', argv: [process.execPath, '-e', code], ...opts };
}

export function runs(counter: string): number {
  return existsSync(counter) ? readFileSync(counter, 'utf8').length : 0;
}

export function counts(shard: Shard): { nodes: number; sessions: number; events: number; cache: number } {
  const one = (sql: string) => dbOf(shard).prepare(sql).pluck().get() as number;
  return {
    nodes: one('SELECT count(*) FROM nodes'),
    sessions: one('SELECT count(*) FROM sessions'),
    events: one('SELECT count(*) FROM audit_events'),
    cache: one('SELECT count(*) FROM answer_cache'),
  };
}

export interface Corpus {
  a1: string;
  a2: string;
  b1: string;
  b2: string;
  c1: string;
  c2: string;
  d1: string;
  e1: string;
}

/** A small history across five sessions: rust, sqlite, misc, python, and a question made of stop words. */
export function seed(shard: Shard): Corpus {
  const t = (question: string, answer_text: string, where: { label?: string; parent?: string }) =>
    shard.addTurn({ question, answer_text, ...where }).bates;
  const a1 = t(
    'what is rust?',
    'Rust is a systems programming language focused on memory safety, speed and fearless concurrency.',
    { label: 'rust' },
  );
  const a2 = t(
    'how does the borrow checker work?',
    'The borrow checker enforces ownership and borrowing rules at compile time: one mutable reference or many shared ones.',
    { parent: a1 },
  );
  const b1 = t(
    'how does sqlite wal mode work?',
    'In WAL mode SQLite appends changes to a write-ahead log file; readers keep reading the database while a writer ' +
      'appends, and a checkpoint copies pages back.',
    { label: 'db' },
  );
  const b2 = t(
    'what does a checkpoint do in sqlite?',
    'A checkpoint moves committed pages from the WAL file back into the main database file.',
    { parent: b1 },
  );
  const c1 = t(
    'who created rust?',
    'Graydon Hoare started the language as a personal project at Mozilla Research in 2006.',
    { label: 'misc' },
  );
  const c2 = t('best pizza dough recipe', 'Flour, water, salt and yeast; rest the dough for a day.', {
    parent: c1,
  });
  const d1 = t('who created python?', 'Guido van Rossum released Python in 1991.', { label: 'python' });
  const e1 = t('what is it and how is it done?', 'Nobody could say.', {});
  return { a1, a2, b1, b2, c1, c2, d1, e1 };
}
