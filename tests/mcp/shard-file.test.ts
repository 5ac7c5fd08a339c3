import { spawnSync } from 'node:child_process';
import { copyFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tamper } from '../support/attacker.js';
import { cli } from '../support/cli.js';
import { dropSince0010 } from '../support/older.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { shard } from './sample.js';
import { call, connect, fails, type Json, ok, shardBytes } from './support.js';

/**
 * `arborist mcp` and the shard's file: the server only reads it (its bytes stay as they were, a writer's WAL
 * included), never indexes or upgrades it, serves the file at its path from call to call, and says what is wrong
 * with one as a tool error.
 */

describe('arborist mcp and the shard file', () => {
  it('leaves the shard’s bytes as they were, with a writer’s uncheckpointed WAL beside it', async () => {
    const db = shard();
    const closed = shardBytes(db);
    let c = await connect(db);
    for (const tool of ['find', 'show', 'path', 'tree', 'list', 'check'])
      await call(c, tool, { query: 'lifetime', bates: 'cccc-000002', session: 'cccc' });
    await c.close();
    expect(shardBytes(db)).toBe(closed);

    // A writer still open, its last turn only in the -wal: the server sees it, and changes neither file.
    const writer = Shard.open(db);
    try {
      writer.addTurn({ session: 'xxxx', question: 'fresh in the wal', answer_text: 'not checkpointed' });
      const live = shardBytes(db);
      c = await connect(db);
      expect((await ok(c, 'find', { query: 'fresh' })).hits.map((h: Json) => h.question)).toEqual([
        'fresh in the wal',
      ]);
      await ok(c, 'check');
      await c.close();
      expect(shardBytes(db)).toBe(live);
    } finally {
      writer.close();
    }

    // A writer killed before it could checkpoint: its frames are in the -wal, and no connection is left. A server
    // opened for writing would checkpoint them into the file on closing, as the last connection; this one reads them.
    const store = new URL('../../dist/src/store/index.js', import.meta.url).href;
    const killed = spawnSync(process.execPath, [
      '--input-type=module',
      '-e',
      `const { Shard } = await import(${JSON.stringify(store)});
       const s = Shard.open(${JSON.stringify(db)});
       s.addTurn({ session: 'xxxx', question: 'left in a crashed wal', answer_text: 'never checkpointed' });
       process.kill(process.pid, 'SIGKILL');`,
    ]);
    expect(killed.signal).toBe('SIGKILL');
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    const crashed = shardBytes(db);
    c = await connect(db);
    expect((await ok(c, 'find', { query: 'crashed' })).hits).toHaveLength(1);
    await ok(c, 'list');
    await c.close();
    expect(shardBytes(db)).toBe(crashed);
  });

  it('check says where a tampered chain breaks, as a result, not an error', async () => {
    const db = shard();
    tamper(
      db,
      (raw) =>
        raw
          .prepare(
            "UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), 'a', 'b') AS BLOB) WHERE seq = 5",
          )
          .run(),
      { rehash: false },
    );
    const c = await connect(db);
    const check = await ok(c, 'check');
    expect(check).toMatchObject({ ok: false, first_broken_seq: 5 });
    expect(check.reason).toMatch(/\S/);
    expect(check.head).toBe(cli(['chain-check', '--db', db, '--json']).json().head);
  });

  it('neither indexes nor upgrades the shard: a shard due an upgrade is a tool error of one line', async () => {
    const db = shard();
    // Turns waiting to be indexed: a writable open indexes them; this server searches them as they wait.
    tamper(db, (raw) => raw.exec('INSERT INTO fts_pending SELECT id FROM nodes'), { rehash: false });
    const waiting = shardBytes(db);
    let c = await connect(db);
    expect((await ok(c, 'find', { query: 'lifetime' })).hits).toHaveLength(3);
    await c.close();
    expect(shardBytes(db)).toBe(waiting);

    tamper(
      db,
      (raw) => {
        dropSince0010(raw);
        raw.pragma('user_version = 9');
      },
      { rehash: false },
    );
    const old = shardBytes(db);
    c = await connect(db);
    expect(await fails(c, 'find', { query: 'lifetime' })).toMatch(/needs a schema upgrade \(schema 9/);
    expect(await fails(c, 'list')).toMatch(/needs a schema upgrade/);
    await c.close();
    expect(shardBytes(db)).toBe(old);
  });

  it('serves the shard at its path: one put in its place is read from the next call, one removed is said', async () => {
    const dir = tempDir();
    const db = join(dir, 's.db');
    copyFileSync(shard(), db);
    const c = await connect(db);
    expect((await ok(c, 'list')).sessions).toHaveLength(3);
    // A restore from a backup, or a new shard moved in: it kept answering from the old file, removed or not.
    const other = tempDb();
    const s = Shard.open(other);
    s.addTurn({ question: 'the other shard', answer_text: 'a' });
    s.close();
    renameSync(other, db);
    expect((await ok(c, 'list')).sessions.map((x: Json) => x.first_question)).toEqual(['the other shard']);
    unlinkSync(db);
    expect(await fails(c, 'list')).toMatch(/no shard at .*s\.db/);
  });

  it('says what is wrong with the shard as a tool error, and serves it once it is there', async () => {
    const dir = tempDir();
    const db = join(dir, 'later.db');
    const c = await connect(db);
    expect(await fails(c, 'list')).toMatch(/no shard at .*later\.db/);
    copyFileSync(shard(), db);
    expect((await ok(c, 'list')).sessions).toHaveLength(3);

    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'not a database at all, just text');
    const j = await connect(junk);
    expect(await fails(j, 'find', { query: 'x' })).toMatch(/is not an SQLite database/);
    expect(await fails(j, 'check')).toMatch(/is not an SQLite database/);
  });
});
