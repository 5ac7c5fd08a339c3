import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { addCheckpoint, getEntry, listArchives, Shard, setEntry } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { BIN, cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import { archivedSids, fileBytes, healthy, session, snapshot } from './util.js';

const HEX64 = /^[0-9a-f]{64}$/;

function run(db: string, ...args: string[]) {
  const r = cli([...args, '--db', db, '--json']);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return r.json();
}

/** Builds a shard with an entry 'main' whose family is two sessions (current + pre-compaction), then closes it. */
function build(db: string) {
  const s = Shard.open(db);
  try {
    const pre = session(s, 3, { word: 'walrus' });
    const cur = session(s, 2, { word: 'narwhal' });
    const other = session(s, 1);
    setEntry(s, 'main', cur.sid);
    // Through the store, so the chain records it (verify compares entries with what the chain recorded).
    addCheckpoint(s, 'main', { pre: pre.sid, post: cur.sid });
    return { pre, cur, other };
  } finally {
    s.close();
  }
}

/** Everything a crash could leave half done. */
function state(db: string) {
  const s = Shard.open(db);
  try {
    healthy(s);
    return {
      ...snapshot(s),
      entries: dbOf(s).prepare('SELECT * FROM session_entries ORDER BY key').all(),
      archives: archivedSids(s),
      head: s.chainHead(),
      fts: dbOf(s)
        .prepare("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH 'walrus OR narwhal'")
        .pluck()
        .get(),
    };
  } finally {
    s.close();
  }
}

/** Runs the CLI with the crash hook set; the process must die by SIGKILL. */
function crash(db: string, point: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', db], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ARBORIST_TEST_CRASH_AFTER: point },
    encoding: 'utf8',
  });
  expect(r.signal, `${point}: ${r.stderr}`).toBe('SIGKILL');
}

describe('arborist entry / reset / delete / archive / maintain', () => {
  // snake_case as every other --json output (list, show, find, reset: sid, previous_sid, created_at); before
  // this change entries alone gave the stored document's camelCase (sessionId, usageFamilySessionIds, ...).
  it('entry set, list, show, checkpoint, usage-family: JSON shapes, snake_case', () => {
    const db = tempDb();
    const a = run(db, 'new', '--label', 'first');
    const b = run(db, 'new');
    const t = run(db, 'ask', 'q one', '--answer', 'a', '--session', a.sid);

    const set = run(db, 'entry', 'set', 'main', '--session', 'first');
    expect(Object.keys(set).sort()).toEqual(
      [
        'changed',
        'compaction_checkpoints',
        'family',
        'key',
        'previous_sid',
        'sid',
        'updated_at',
        'usage_family_sids',
      ].sort(),
    );
    expect(set).toMatchObject({ key: 'main', sid: a.sid, previous_sid: null, changed: true });
    // By label works too; the previous session joins the usage family.
    expect(run(db, 'entry', 'set', 'main', '--session', b.sid)).toMatchObject({
      previous_sid: a.sid,
      usage_family_sids: [a.sid],
    });
    const cp = run(db, 'entry', 'checkpoint', 'main', '--pre', t.bates, '--post', b.sid, '--summary', 'sum');
    expect(Object.keys(cp.checkpoint).sort()).toEqual(
      ['checkpoint_id', 'created_at', 'post_compaction', 'pre_compaction', 'reason', 'summary'].sort(),
    );
    expect(cp.checkpoint).toMatchObject({
      reason: 'compaction',
      summary: 'sum',
      pre_compaction: { sid: a.sid, leaf_bates: t.bates },
    });
    expect(cp.checkpoint.post_compaction).toEqual({ sid: b.sid });
    expect(cp.compaction_checkpoints).toEqual([cp.checkpoint]);
    const c = run(db, 'new');
    expect(run(db, 'entry', 'usage-family', 'main', '--add', c.sid)).toMatchObject({
      changed: true,
      usage_family_sids: [a.sid, c.sid],
      family: [b.sid, a.sid, c.sid],
    });
    const list = run(db, 'entry', 'list');
    expect(list).toHaveLength(1);
    expect(run(db, 'entry', 'show', 'main')).toEqual(list[0]);
    const text = cli(['entry', 'show', 'main', '--db', db]);
    expect(text.stdout).toContain(`checkpoint   ${cp.checkpoint.checkpoint_id}`);
  });

  it('reset and delete print what was archived and what was kept, and why; archive list/show/restore', () => {
    const db = tempDb();
    const { pre, cur } = build(db);
    const s = Shard.open(db);
    // A second entry shares the pre-compaction session.
    setEntry(s, 'work', pre.sid);
    s.close();

    const dry = run(db, 'reset', 'main', '--dry-run');
    expect(dry).toMatchObject({
      action: 'reset',
      key: 'main',
      dry_run: true,
      previous_sid: cur.sid,
      sid: null,
    });
    expect(dry.archived.map((x: { sid: string }) => x.sid)).toEqual([cur.sid]);
    expect(dry.kept).toEqual([
      {
        sid: pre.sid,
        label: null,
        n_nodes: 3,
        why: ["referenced by entry 'work' (its current session)"],
        reasons: [{ kind: 'entry', key: 'work', role: 'current' }],
      },
    ]);
    const ro = Shard.open(db, { readonly: true });
    expect(archivedSids(ro)).toEqual([]);
    ro.close();

    const reset = run(db, 'reset', 'main');
    expect(Object.keys(reset).sort()).toEqual(
      ['action', 'archived', 'dry_run', 'family', 'gone', 'kept', 'key', 'previous_sid', 'sid'].sort(),
    );
    expect(reset.sid).toMatch(/^[a-z0-9]{8}$/);
    expect(reset.archived).toHaveLength(1);
    expect(Object.keys(reset.archived[0]).sort()).toEqual(
      [
        'archived_at',
        'bytes',
        'label',
        'last_activity',
        'n_nodes',
        'reason',
        'sha256',
        'sid',
        'stored_bytes',
        'why',
      ].sort(),
    );
    expect(reset.archived[0]).toMatchObject({ sid: cur.sid, reason: 'reset', n_nodes: 2 });
    expect(reset.archived[0].sha256).toMatch(HEX64);

    const del = cli(['delete', 'work', '--db', db]);
    expect(del.code).toBe(0);
    expect(del.stdout).toContain('deleted entry work');
    expect(del.stdout).toContain(`archived 1 session:\n  ${pre.sid}  3 turns`);

    const list = run(db, 'archive', 'list');
    expect(list.map((x: { sid: string }) => x.sid).sort()).toEqual([cur.sid, pre.sid].sort());
    expect(Object.keys(list[0]).sort()).toEqual(
      ['archived_at', 'bytes', 'label', 'n_nodes', 'reason', 'sha256', 'sid', 'stored_bytes'].sort(),
    );
    const show = run(db, 'archive', 'show', pre.sid);
    expect(show).toMatchObject({ sid: pre.sid, intact: true, reason: 'deleted', n_nodes: 3 });
    expect(show.nodes.map((n: { bates: string }) => n.bates)).toEqual(pre.bates);
    expect(show.nodes[0]).not.toHaveProperty('id');

    expect(run(db, 'find', 'walrus')).toEqual([]);
    const found = run(db, 'find', '--archived', 'walrus');
    expect(found.map((h: { bates: string }) => h.bates).sort()).toEqual([...pre.bates].sort());
    expect(Object.keys(found[0]).sort()).toEqual(
      ['archived_at', 'audit', 'bates', 'question', 'reason', 'sid', 'snippet'].sort(),
    );

    const restored = run(db, 'archive', 'restore', pre.sid, cur.sid);
    expect(restored.restored.map((r: { sid: string; identical: boolean }) => [r.sid, r.identical])).toEqual([
      [pre.sid, true],
      [cur.sid, true],
    ]);
    expect(run(db, 'find', 'walrus')).toHaveLength(3);
    expect(run(db, 'verify').ok).toBe(true);
    expect(run(db, 'chain-check').ok).toBe(true);
  });

  it('errors are one line, exit 2: unknown key, unknown sid, bad usage', () => {
    const db = tempDb();
    const { cur } = build(db);
    const cases: [string[], string, string][] = [
      [['entry', 'show', 'nosuch'], "no entry 'nosuch'", 'not_found'],
      [['reset', 'nosuch'], "no entry 'nosuch'", 'not_found'],
      [['delete', 'nosuch'], "no entry 'nosuch'", 'not_found'],
      [['entry', 'set', 'main', '--session', 'nosuch'], "no session 'nosuch'", 'not_found'],
      [['entry', 'usage-family', 'main', '--add', 'nosuch'], "no session 'nosuch'", 'not_found'],
      [['archive', 'show', 'nosuch'], "no archived session 'nosuch'", 'not_found'],
      [['archive', 'restore', 'nosuch'], "no archived session 'nosuch'", 'not_found'],
      [['archive', 'restore', cur.sid], 'is live, not archived', 'input'],
      [['entry', 'set', 'bad key', '--session', cur.sid], 'entry key', 'input'],
      [['entry'], 'usage: arborist entry set', 'usage'],
      [['entry', 'list', '--session', cur.sid], 'entry list does not take --session', 'usage'],
      [['entry', 'set', 'main'], 'usage: arborist entry set KEY --session SID', 'usage'],
      [['archive', 'frobnicate'], 'usage: arborist archive list', 'usage'],
      [['maintain', '--older-than', '3x'], "'3x' is not a duration", 'usage'],
      [['maintain', '--max-bytes', 'lots'], "'lots' is not a size", 'usage'],
      [['maintain', '--max-sessions', '-1'], '', 'usage'],
      [['find', '--archived', 'x', '--scope', cur.sid], '--archived does not combine', 'usage'],
    ];
    for (const [args, msg, kind] of cases) {
      const r = cli([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n').filter(Boolean), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toContain(msg);
      const j = cli([...args, '--db', db, '--json']);
      expect(j.code).toBe(2);
      expect(j.json().kind, args.join(' ')).toBe(kind);
    }
  });

  it('maintain without --apply leaves the shard byte-identical, even with another writer holding WAL frames', () => {
    const db = tempDb();
    build(db);
    const before = fileBytes(db);
    const preview = run(db, 'maintain', '--older-than', '1ms', '--max-sessions', '0', '--max-bytes', '1K');
    expect(preview.applied).toBe(false);
    expect(preview.archive.length).toBeGreaterThan(0);
    expect(preview.freed_bytes).toBeNull();
    expect(cli(['maintain', '--older-than', '1ms', '--db', db]).stdout).toContain('run again with --apply');
    expect(fileBytes(db)).toEqual(before);

    // A writer keeps the shard open with un-checkpointed frames in the -wal: a preview must not checkpoint them.
    const w = Shard.open(db);
    try {
      w.addTurn({ question: 'pending', answer_text: 'in the wal' });
      const held = fileBytes(db);
      expect(held.wal.length).toBeGreaterThan(0);
      run(db, 'maintain', '--older-than', '1ms');
      expect(fileBytes(db)).toEqual(held);
    } finally {
      w.close();
    }

    const applied = run(db, 'maintain', '--max-sessions', '2', '--apply');
    expect(applied.applied).toBe(true);
    expect(typeof applied.freed_bytes).toBe('number');
    expect(applied.archive.every((a: { sha256: string }) => HEX64.test(a.sha256))).toBe(true);
    expect(applied.after.sessions).toBe(2);
    expect(run(db, 'list')).toHaveLength(2);
    expect(run(db, 'verify').ok).toBe(true);
  });
});

describe('a crash (kill -9) in the middle of an archive leaves the before or the after state, never half', () => {
  for (const point of [
    'serialise',
    'delete-fts',
    'delete-nodes',
    'delete-session',
    'ripple',
    'audit',
    'delete-nodes:2',
  ]) {
    it(`killed at ${point}: the before state`, () => {
      const db = tempDb();
      const { pre, cur } = build(db);
      // Hang the current session under a live turn of another session, so the archive ripples a live parent.
      const s = Shard.open(db);
      const live = session(s, 1);
      s.addTurn({ session: cur.sid, parent: live.bates[0], question: 'narwhal fork', answer_text: 'x' });
      s.close();
      const before = state(db);
      crash(db, point, 'delete', 'main');
      expect(state(db)).toEqual(before);
      const after = Shard.open(db);
      expect(getEntry(after, 'main')).toBeDefined();
      expect(after.getSession(pre.sid)).toBeDefined();
      after.close();
    });
  }

  it('killed right after the commit: the after state, complete', () => {
    const db = tempDb();
    const { pre, cur } = build(db);
    crash(db, 'commit', 'delete', 'main');
    const s = Shard.open(db);
    try {
      healthy(s);
      expect(getEntry(s, 'main')).toBeUndefined();
      expect(archivedSids(s)).toEqual([pre.sid, cur.sid].sort());
      expect(s.getSession(pre.sid)).toBeUndefined();
      expect(
        dbOf(s).prepare('SELECT count(*) FROM nodes WHERE sid IN (?, ?)').pluck().get(pre.sid, cur.sid),
      ).toBe(0);
      expect(listArchives(s)).toHaveLength(2);
    } finally {
      s.close();
    }
  });

  it('a crash in maintain --apply or archive restore also leaves the before state', () => {
    const db = tempDb();
    build(db);
    const s = Shard.open(db);
    session(s, 2);
    s.close();
    const before = state(db);
    crash(db, 'delete-nodes:2', 'maintain', '--max-sessions', '0', '--apply');
    expect(state(db)).toEqual(before);

    run(db, 'delete', 'main');
    const archived = state(db);
    const sids = archived.archives;
    crash(db, 'insert-nodes', 'archive', 'restore', ...sids);
    expect(state(db)).toEqual(archived);
    run(db, 'archive', 'restore', ...sids);
    const restored = state(db);
    expect(restored.nodes).toEqual(before.nodes);
    expect(restored.sessions).toEqual(before.sessions);
  });
});
