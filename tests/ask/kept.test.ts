/**
 * `arborist ask --kept FILE` with a file someone else may have written (it sits beside the shard, and anyone who
 * can write that folder can write it): the cache key it stores under must be the one its question, provider and
 * parent give; its fields must be what ask writes; only a regular file of bounded size is read; and the same answer
 * stored twice is stored once. The real binary, real shards, kept files written by ask itself under a real lock.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask, UnstoredAnswer } from '../../src/ask/index.js';
import { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { BIN, cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { CAPTURE, capture } from './helpers.js';

/** A shard with a root turn and a child under it. */
function shard(): { db: string; root: string; child: string } {
  const db = tempDb();
  const s = Shard.open(db);
  try {
    const root = s.addTurn({ question: 'what is wal?', answer_text: 'a log' }).bates;
    const child = s.addTurn({ question: 'and fsync?', answer_text: 'a flush', parent: root }).bates;
    return { db, root, child };
  } finally {
    s.close();
  }
}

/** The answer command as `--answer-cmd` takes it: the same argv (so the same cache key) as capture(). */
const answerCmd = (counter: string) => `${process.execPath} ${CAPTURE} - ${counter}`;

/** A kept file written by ask itself: the shard held locked by another connection while the answer is stored. */
async function keptOf(db: string, question: string, parent: string, counter: string): Promise<string> {
  const asker = Shard.open(db, { busyTimeoutMs: 100 });
  const holder = Shard.open(db);
  try {
    dbOf(holder).exec('BEGIN IMMEDIATE');
    const err = await ask(asker, { question, parent, provider: capture('-', counter) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnstoredAnswer);
    return (err as UnstoredAnswer).file!;
  } finally {
    if (dbOf(holder).inTransaction) dbOf(holder).exec('ROLLBACK');
    holder.close();
    asker.close();
  }
}

function turns(
  db: string,
): { bates: string; question: string; answer_text: string; cache_key: string | null }[] {
  const s = Shard.open(db, { readonly: true });
  try {
    return dbOf(s).prepare('SELECT bates, question, answer_text, cache_key FROM nodes ORDER BY id').all() as {
      bates: string;
      question: string;
      answer_text: string;
      cache_key: string | null;
    }[];
  } finally {
    s.close();
  }
}

const edit = (file: string, change: Record<string, unknown>, drop: string[] = []) => {
  const doc = { ...JSON.parse(readFileSync(file, 'utf8')), ...change };
  for (const k of drop) delete doc[k];
  writeFileSync(file, JSON.stringify(doc));
};

/** Exit 2, one line on stderr matching `re`, nothing stored, the file left where it is. */
function refused(db: string, file: string, re: RegExp, timeoutMs?: number): void {
  const before = turns(db);
  const r = cli(['ask', '--kept', file, '--db', db], { timeoutMs });
  expect(r.stderr).toMatch(/^arborist: [^\n]*\n$/);
  expect(r.stderr).toMatch(re);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(turns(db)).toEqual(before);
}

describe('ask --kept: the cache key is recomputed, not taken from the file', () => {
  it('a key forged for another question: refused, nothing stored, and that question is not answered from the cache', async () => {
    const { db, child } = shard();
    const dir = tempDir();
    const file = await keptOf(db, 'and checkpoints?', child, join(dir, 'runs'));
    // The attacker learns the key of the question to poison by asking it of a copy of the shard.
    const copy = join(dir, 'copy.db');
    copyFileSync(db, copy);
    const target = cli([
      'ask',
      'what is a page?',
      '--parent',
      child,
      '--answer-cmd',
      answerCmd('-'),
      '--db',
      copy,
      '--json',
    ]);
    expect(target.code, target.stderr).toBe(0);
    edit(file, { cache_key: target.json().cache_key, answer_text: 'POISON' });

    refused(db, file, /cache_key .* is not the key of its question/);
    expect(existsSync(file)).toBe(true);
    const asked = cli([
      'ask',
      'what is a page?',
      '--parent',
      child,
      '--answer-cmd',
      answerCmd('-'),
      '--db',
      db,
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(/\] fresh\n$/);
    expect(asked.stdout).not.toContain('POISON');
  });

  it.each([
    ['the question changed', { question: 'what is a page?' }],
    ['another provider', { provider: 'command:["llm","-m","4o"]' }],
    ['another parent', { parent_bates: 'ROOT' }],
    ['the question normalised differently', { question: 'and  checkpoints ? ' }],
  ])('%s, the key kept: refused', async (_name, change) => {
    const { db, root, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    edit(file, 'parent_bates' in change ? { parent_bates: root } : change);
    refused(db, file, /cache_key .* is not the key of its question/);
  });

  it('a parent that is not in the shard: refused, the file kept', async () => {
    const { db, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    edit(file, { parent_bates: `${child.split('-')[0]}-000099` });
    refused(db, file, /no turn/);
    expect(existsSync(file)).toBe(true);
  });
});

describe('ask --kept: fields ask never writes are refused', () => {
  it.each<[string, Record<string, unknown>, string[]?]>([
    ['no provider', {}, ['provider']],
    ['a manual provider (a given answer is never kept)', { provider: 'manual' }],
    ['a provider that is no policy', { provider: 'gpt' }],
    ['a command policy that is not canonical JSON', { provider: 'command:[ "llm" ]' }],
    ['an empty command policy', { provider: 'command:[]' }],
    ['a provider that is not text', { provider: 7 }],
    ['a command answer tagged grounded', { audit: 'grounded' }],
    ['the audit tag manual', { audit: 'manual' }],
    ['a cached answer marked cacheable', { audit: 'cached', cacheable: true }],
    ['a fresh answer marked not cacheable', { cacheable: false }],
    ['a fork without a parent', { fork: true, parent_bates: null }],
    ['a fork into a session', { fork: true, session: 'x' }],
    ['asked_at not text', { asked_at: 5 }],
    ['a label that is not text', { label: 5 }],
    ['cited titles with a number', { cited_titles: ['a', 1] }],
    ['the version 2', { v: 2 }],
  ])('%s', async (_name, change, drop) => {
    const { db, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    edit(file, change, drop);
    refused(db, file, /is not a kept answer \(/);
    expect(existsSync(file)).toBe(true);
  });

  it('a built-in answer: grounded or ungrounded, cacheable only when grounded', async () => {
    const { db, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    // A built-in answer kept: the policy builtin/1 and its own key (as ask would have computed it).
    const copy = join(tempDir(), 'copy.db');
    copyFileSync(db, copy);
    const key = cli(['ask', 'and checkpoints?', '--parent', child, '--db', copy, '--json']).json().cache_key;
    edit(file, { provider: 'builtin/1', cache_key: key, audit: 'fresh', cacheable: true });
    refused(db, file, /is not a kept answer \(audit\)/);
    edit(file, { audit: 'ungrounded', cacheable: true });
    refused(db, file, /is not a kept answer \(cacheable\)/);
    edit(file, { audit: 'ungrounded', cacheable: false });
    const r = cli(['ask', '--kept', file, '--db', db]);
    expect(r.stderr).toMatch(/\] ungrounded\n$/);
    expect(r.code).toBe(0);
  });
});

describe('ask --kept: only a regular file of bounded size is read', () => {
  it('a FIFO: one line, exit 2, no hang', () => {
    const { db } = shard();
    const fifo = `${db}.kept-fifo.json`;
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    refused(db, fifo, /not a regular file \(a FIFO\)/, 15_000);
  });

  it('/dev/zero: one line, exit 2, nothing read', () => {
    const { db } = shard();
    refused(db, '/dev/zero', /not a regular file \(a character device\)/, 15_000);
  });

  it('a file larger than 256 MiB: refused unread; a folder; a file that is not there', () => {
    const { db } = shard();
    const big = `${db}.kept-big.json`;
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024); // sparse: nothing is written
    refused(db, big, /larger than 256 MiB/, 15_000);
    const dir = `${db}.kept-dir.json`;
    mkdirSync(dir);
    refused(db, dir, /is a folder/);
    refused(db, `${db}.kept-none.json`, /no file /);
  });
});

describe('ask --kept: the same answer is stored once', () => {
  it('a second run of the same file (or a copy of it): a no-op naming the turn, exit 0, the file removed', async () => {
    const { db, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    const copies = [`${file}.1`, `${file}.2`];
    for (const c of copies) copyFileSync(file, c);
    const first = cli(['ask', '--kept', file, '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    const bates = /^\[([a-z0-9]+-\d{6})\] fresh\n$/.exec(first.stderr)?.[1];
    expect(bates, first.stderr).toBeDefined();

    const again = cli(['ask', '--kept', copies[0], '--db', db]);
    expect(again.stderr).toBe(`arborist: ${copies[0]} is already stored as ${bates}: nothing stored\n`);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(existsSync(copies[0])).toBe(false);
    const json = cli(['ask', '--kept', copies[1], '--db', db, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toMatchObject({ bates, parent_bates: child, audit: 'fresh', already_stored: true });
    expect(turns(db).filter((t) => t.question === 'and checkpoints?')).toHaveLength(1);
    expect(cli(['check', '--db', db]).code).toBe(0);
  });

  it('two runs at once: one turn', async () => {
    const { db, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    copyFileSync(file, `${file}.1`);
    const run = (f: string) =>
      new Promise<number>((resolve) => {
        const c = spawn(process.execPath, [BIN, 'ask', '--kept', f, '--db', db], { stdio: 'ignore' });
        c.on('exit', (code) => resolve(code ?? -1));
      });
    expect(await Promise.all([run(file), run(`${file}.1`)])).toEqual([0, 0]);
    expect(turns(db).filter((t) => t.question === 'and checkpoints?')).toHaveLength(1);
  });

  it('another answer to the same question in the same place is stored: only the same answer is the same turn', async () => {
    const { db, child } = shard();
    const file = await keptOf(db, 'and checkpoints?', child, join(tempDir(), 'runs'));
    copyFileSync(file, `${file}.1`);
    edit(`${file}.1`, { answer_text: 'a second answer' });
    expect(cli(['ask', '--kept', file, '--db', db]).code).toBe(0);
    const second = cli(['ask', '--kept', `${file}.1`, '--db', db]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/\] fresh\n$/);
    expect(turns(db).filter((t) => t.question === 'and checkpoints?')).toHaveLength(2);
  });
});
