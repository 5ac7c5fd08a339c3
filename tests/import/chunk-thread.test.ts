import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type BulkTurn, CRASH_HOOK_ENV } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * Record chunks of 64 KiB and more are compressed on a thread of their own while the import goes on, and written
 * when they come back, at the latest just before the group commits (src/store/write/chunks.ts). The real binary
 * (the thread is there only when built), Claude Code sessions with long records.
 */

const DIST = new URL('../../dist/src/store/index.js', import.meta.url).href;

/** A Claude Code session of one turn; `text` is the question (its record is as long). */
function session(dir: string, id: string, minute: number, question: string, answer = 'ok'): string {
  const base = { isSidechain: false, userType: 'external', cwd: '/work/fx', sessionId: id, version: '2.1.0' };
  const at = (s: number) => `2026-02-02T09:${String(minute).padStart(2, '0')}:0${s}.000Z`;
  const lines = [
    {
      ...base,
      parentUuid: null,
      type: 'user',
      uuid: `${id}-p`,
      timestamp: at(0),
      message: { role: 'user', content: question },
    },
    {
      ...base,
      parentUuid: `${id}-p`,
      type: 'assistant',
      uuid: `${id}-a`,
      timestamp: at(5),
      message: {
        id: `m-${id}`,
        type: 'message',
        role: 'assistant',
        model: 'x',
        content: [{ type: 'text', text: answer }],
        stop_reason: 'end_turn',
      },
    },
  ];
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

/** Words, not one repeated letter: a question of 300 KiB whose chunk goes to the thread. */
function long(seed: number): string {
  const out: string[] = [];
  for (let i = 0; out.length < 40_000; i++) out.push(`w${(i * 7919 + seed) % 5003}`);
  return out.join(' ');
}

function clean(db: string): void {
  const v = cli(['verify', '--db', db, '--json']);
  expect(v.code, v.stdout + v.stderr).toBe(0);
  expect(v.json().ok).toBe(true);
  expect(cli(['chain-check', '--db', db]).code).toBe(0);
}

function counts(db: string): { chunks: number; pointed: number; sources: number } {
  const h = new Database(db, { readonly: true });
  try {
    const one = (sql: string) => h.prepare(sql).pluck().get() as number;
    return {
      chunks: one('SELECT count(*) FROM source_chunks'),
      pointed: one('SELECT count(DISTINCT chunk_id) FROM node_sources'),
      sources: one('SELECT count(*) FROM node_sources'),
    };
  } finally {
    h.close();
  }
}

/** Every session's source lines, as `export --format source` gives them back. */
function exported(db: string): string[] {
  return cli(['list', '--db', db, '--json'])
    .json()
    .map((s: { sid: string }) => {
      const r = cli(['export', s.sid, '--format', 'source', '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    });
}

describe('record chunks compressed on their own thread', () => {
  it('a write that rolls back with chunks on the thread leaves none of them; written again, each is there once', async () => {
    // The built store: the thread's file is beside it there (not beside the TypeScript sources).
    const { Shard } = (await import(DIST)) as typeof import('../../src/store/index.js');
    const dir = tempDir('arb-chunk-thread-');
    const db = join(dir, 'sessions.db');
    const s = Shard.open(db);
    const sid = s.createSession().sid;
    const ev = { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } } as const;
    const turn = (i: number, question = `question ${i}`): BulkTurn => ({
      sid,
      parent: null,
      content: {
        question,
        answer_text: `answer ${i}`,
        created_at: new Date(Date.UTC(2026, 1, 2, 9, i)).toISOString(),
      },
      records: [JSON.stringify({ n: i, text: long(i) })],
    });
    // The second batch is refused (a text past the store's cap) while the first one's chunk is on the thread.
    expect(() =>
      s.write(() => {
        s.addTurnsBulk([turn(1)], ev);
        s.addTurnsBulk([turn(2, 'x'.repeat(16 * 1024 * 1024 + 1))], ev);
      }),
    ).toThrow(/16 MiB/);
    expect(counts(db)).toEqual({ chunks: 0, pointed: 0, sources: 0 });
    const added = s.write(() => [turn(1), turn(3)].map((t) => s.addTurnsBulk([t], ev).added[0].bates));
    s.close();
    expect(counts(db)).toEqual({ chunks: 2, pointed: 2, sources: 2 });
    const ids = new Database(db, { readonly: true })
      .prepare('SELECT id FROM source_chunks ORDER BY id')
      .pluck()
      .all();
    expect(ids).toEqual([1, 2]);
    clean(db);
    const out = cli(['export', sid, '--format', 'source', '--db', db]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe([1, 3].map((i) => `${turn(i).records![0]}\n`).join(''));
    expect(added).toHaveLength(2);
  });

  it('a crash with chunks on the thread leaves none of the group; the next import writes them all', () => {
    const dir = tempDir('arb-chunk-crash-');
    const projects = join(dir, 'projects', 'p');
    mkdirSync(projects, { recursive: true });
    const db = join(dir, 'sessions.db');
    const files = [1, 2, 3].map((i) =>
      session(projects, `dddd0000-0000-4000-8000-00000000000${i}`, i, long(i)),
    );
    const crashed = cli(['import', 'claude', join(dir, 'projects'), '--db', db], {
      env: { [CRASH_HOOK_ENV]: 'bulk-rows:3' },
    });
    expect(crashed.code).not.toBe(0);
    expect(counts(db)).toEqual({ chunks: 0, pointed: 0, sources: 0 });
    clean(db);
    const r = cli(['import', 'claude', join(dir, 'projects'), '--db', db, '--json']);
    expect(r.json()).toMatchObject({ files: 3, turns_added: 3, errors: 0 });
    expect(counts(db)).toEqual({ chunks: 3, pointed: 3, sources: 3 });
    clean(db);
    expect(exported(db).sort()).toEqual(files.map((f) => readFileSync(f, 'utf8')).sort());
  });
});
