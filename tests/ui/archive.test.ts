import { describe, expect, it } from 'vitest';
import { buildKeymap } from '../../src/keymap/index.js';
import {
  outlineOfTurns as archiveOutline,
  type ChangePlan,
  deleteEntry,
  listArchives,
  listEntries,
  planDelete,
  Shard,
} from '../../src/store/index.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { selectedBates } from '../../src/ui/core/selectors.js';
import { view } from '../../src/ui/core/view.js';
import {
  type ConfirmOverlay,
  confirmLines,
  type EntryItem,
  planSignature,
} from '../../src/ui/features/maintenance/model.js';
import { transcriptDoc } from '../../src/ui/features/transcript/doc.js';
import { entryShard } from '../support/entry-shard.js';
import { tempDb } from '../support/tmp.js';
import { driveRuntime } from '../support/ui-runtime.js';
import { Driver } from './fixtures.js';

const km = buildKeymap();

function press(d: Driver, ...keys: string[]): Effect[] {
  const out: Effect[] = [];
  for (const k of keys) {
    const ch = [...k].length === 1 ? k : undefined;
    out.push(...d.send({ type: 'key', key: k, ch, action: km.byKey.get(k) ?? null }));
  }
  return out;
}

const ARCHIVED = [
  {
    sid: 'cccc',
    label: 'gone \x1b[31mred',
    created_at: '2026-11-02T12:00:00.000Z',
    n_nodes: 2,
    archived: { reason: 'deleted', archived_at: '2026-11-02T12:00:00.000Z' },
  },
];

function plan(): ChangePlan {
  return {
    action: 'delete',
    key: 'main',
    previous_sid: 'cccc',
    family: ['cccc', 'dddd', 'aaaa'],
    archive: [
      {
        sid: 'cccc',
        label: 'chat\x1b]52;c;aGk=\x07',
        n_nodes: 2,
        bytes: 500,
        last_activity: '2026-11-01T00:00:00.000Z',
        reason: 'deleted',
        why: ["in the family of entry 'main' (its current session)", 'nothing that remains references it'],
      },
      {
        sid: 'dddd',
        label: null,
        n_nodes: 1,
        bytes: 300,
        last_activity: '2026-11-01T00:00:00.000Z',
        reason: 'deleted',
        why: ['nothing that remains references it'],
      },
    ],
    keep: [
      {
        sid: 'aaaa',
        label: 'first',
        n_nodes: 5,
        bytes: 900,
        last_activity: '2026-11-01T00:00:00.000Z',
        reasons: [
          { kind: 'parent', bates: 'aaaa-000005', child: 'bbbb-000001', child_sid: 'bbbb', children: 1 },
        ],
        why: ['holds aaaa-000005, the parent of surviving turn bbbb-000001 of session bbbb'],
      },
    ],
    gone: [],
  };
}

const ENTRIES: EntryItem[] = [
  { key: 'main', sid: 'cccc', label: 'chat', n_nodes: 2, family: 3 },
  { key: 'side\x1b[2J', sid: 'aaaa', label: 'first', n_nodes: 5, family: 1 },
];

describe('archived sessions in the tree (reducer)', () => {
  it('A asks for the sessions with the archived ones, lists them after the live ones, marked; A again hides them', () => {
    const d = new Driver();
    const fx = press(d, 'A');
    expect(d.state.showArchived).toBe(true);
    expect(fx).toContainEqual({ type: 'loadSessions' });
    d.send({ type: 'sessions', sessions: d.state.sessions, archived: ARCHIVED });
    expect(d.state.sessions.map((x) => x.sid)).toEqual(['bbbb', 'aaaa', 'cccc']);
    let lines = view(d.state).lines();
    expect(lines[0]).toContain('sessions 2 + 1 archived');
    const row = lines.find((l) => l.includes('gone red'))!;
    expect(row).toContain('gone red');
    expect(row).not.toContain('\x1b');
    expect(row).toMatch(/2 archived\s*│/);
    // A refresh without the archived list keeps the ones shown; a restored sid is shown once, live.
    d.send({
      type: 'sessions',
      sessions: [...d.state.sessions.filter((x) => !x.archived), { ...ARCHIVED[0], archived: undefined }],
    });
    expect(d.state.sessions.map((x) => [x.sid, !!x.archived])).toEqual([
      ['bbbb', false],
      ['aaaa', false],
      ['cccc', false],
    ]);
    d.send({ type: 'sessions', sessions: d.state.sessions.slice(0, 2), archived: ARCHIVED });
    press(d, 'G');
    expect(d.selKey).toBe('s:cccc');
    press(d, 'A');
    expect(d.state.showArchived).toBe(false);
    expect(d.state.sessions.map((x) => x.sid)).toEqual(['bbbb', 'aaaa']);
    expect(d.selKey).toBe('s:aaaa');
    lines = view(d.state).lines();
    expect(lines[0]).toContain('sessions 2 ');
    expect(lines[0]).not.toContain('archived');
  });

  it('an archived session is read-only: ask and fork are refused with the restore command', () => {
    const d = new Driver();
    press(d, 'A');
    d.send({ type: 'sessions', sessions: d.state.sessions, archived: ARCHIVED });
    press(d, 'G');
    const doc = transcriptDoc(d.state);
    const text = doc
      .block(0)
      .map((l) => l.text)
      .join(' '); // wrapped to the pane
    expect(text).toContain('archived');
    expect(text).toContain('arborist archive restore cccc');
    for (const k of ['a', 'f']) {
      const fx = press(d, k);
      expect(fx).toEqual([]);
      expect(d.state.overlay).toBeNull();
      expect(d.state.message?.level).toBe('error');
      expect(d.state.message?.text).toBe('read-only (archived): arborist archive restore cccc, or R');
    }
    // Its turns (from the archive, through the same outline action) are refused too, and the transcript says so.
    press(d, 'l');
    d.send({
      type: 'outline',
      sid: 'cccc',
      nodes: [
        {
          id: 9,
          bates: 'cccc-000001',
          sid: 'cccc',
          seq: 1,
          parent_bates: null,
          is_top: true,
          n_children: 0,
          question: 'old question',
          audit: 'manual',
          created_at: '2026-11-01T00:00:00.000Z',
          cross: false,
          local_depth: 0,
        },
      ],
    });
    press(d, 'j');
    expect(selectedBates(d.state)).toBe('cccc-000001');
    press(d, 'a');
    expect(d.state.overlay).toBeNull();
    expect(d.state.message?.text).toContain('read-only (archived)');
    expect(view(d.state).lines()[0]).toContain('archived, read-only · cccc-000001');
    // A live turn still asks.
    press(d, 'g', 'l', 'l');
    press(d, 'a');
    expect(d.state.overlay?.kind).toBe('input');
  });

  it('R on a live session explains; on an archived one it opens the restore confirmation', () => {
    const d = new Driver();
    press(d, 'R');
    expect(d.state.overlay).toBeNull();
    expect(d.state.message?.text).toContain('select an archived session to restore it (A shows them)');
    press(d, 'A');
    d.send({ type: 'sessions', sessions: d.state.sessions, archived: ARCHIVED });
    press(d, 'G', 'R');
    const ov = d.state.overlay as ConfirmOverlay;
    expect(ov.kind).toBe('confirm');
    expect(ov.what).toMatchObject({ op: 'restore', sid: 'cccc', reason: 'deleted' });
    const screen = view(d.state).lines().join('\n');
    expect(screen).toContain('restore archived session cccc');
    expect(screen).toContain('Restore session cccc · gone red (2 turns).');
    expect(press(d, 'n')).toEqual([]);
    expect(d.state.overlay).toBeNull();
    press(d, 'R');
    expect(press(d, 'y')).toEqual([{ type: 'restoreArchive', sid: 'cccc' }]);
    expect(d.state.busy).toBe('restoring cccc…');
    const fx = d.send({ type: 'restoreDone', sids: ['cccc'], n_nodes: 2 });
    expect(d.state.busy).toBeNull();
    expect(d.state.message?.text).toBe('restored cccc (2 turns): live again');
    expect(fx).toContainEqual({ type: 'loadSessions' });
    expect(fx).toContainEqual({ type: 'syncChain' });
  });
});

describe('entries, reset and delete (reducer)', () => {
  it('E lists entries; x previews the delete; n goes back and Esc closes, with no effect at all', () => {
    const d = new Driver();
    expect(press(d, 'E')).toEqual([{ type: 'loadEntries' }]);
    expect(d.state.overlay).toMatchObject({ kind: 'entries', items: null });
    expect(view(d.state).lines().join('\n')).toContain('loading…');
    d.send({ type: 'entries', items: ENTRIES });
    let screen = view(d.state).lines().join('\n');
    expect(screen).toContain('main');
    expect(screen).toContain('cccc chat · 2 turns');
    expect(screen).toContain('family 3');
    expect(screen).toContain('side  '); // the escape sequence in the key is gone
    expect(screen).not.toContain('\x1b');
    press(d, 'j');
    expect(d.state.overlay).toMatchObject({ kind: 'entries', sel: 1 });
    press(d, 'k');
    expect(press(d, 'x')).toEqual([{ type: 'planChange', op: 'delete', key: 'main' }]);
    expect(d.state.overlay).toMatchObject({
      kind: 'confirm',
      what: { op: 'delete', key: 'main' },
      plan: null,
    });
    expect(view(d.state).lines().join('\n')).toContain('working out what would be archived');
    // y before the plan is there does nothing
    expect(press(d, 'y')).toEqual([]);
    d.send({ type: 'changePlan', op: 'delete', key: 'main', plan: plan() });
    screen = view(d.state).lines().join('\n');
    expect(screen).toContain("delete entry 'main'");
    expect(screen).toContain("Entry 'main' goes. 2 sessions will be archived (reason deleted), 1 kept.");
    expect(screen).toContain('Will be archived:');
    expect(screen).toContain('cccc · chat · 2 turns');
    expect(screen).toContain("in the family of entry 'main' (its current session)");
    expect(screen).toContain('dddd · 1 turn');
    expect(screen).toContain('Kept:');
    expect(screen).toContain('aaaa · first · 5 turns');
    expect(screen).toContain('holds aaaa-000005, the parent of surviving turn bbbb-000001 of session bbbb');
    expect(screen).toContain('y/Enter confirms · n/Esc cancels');
    expect(screen).not.toMatch(/\x1b|\x07/);
    // n: back to the list, as it was
    expect(press(d, 'n')).toEqual([]);
    expect(d.state.overlay).toMatchObject({ kind: 'entries', sel: 0, items: ENTRIES });
    // r: the reset preview; Esc: back; Esc: closed
    expect(press(d, 'r')).toEqual([{ type: 'planChange', op: 'reset', key: 'main' }]);
    d.send({ type: 'changePlan', op: 'reset', key: 'main', plan: { ...plan(), action: 'reset' } });
    expect(view(d.state).lines().join('\n')).toContain("Entry 'main' moves to a new, empty session.");
    expect(press(d, 'escape')).toEqual([]);
    expect(d.state.overlay?.kind).toBe('entries');
    expect(press(d, 'escape')).toEqual([]);
    expect(d.state.overlay).toBeNull();
    expect(d.effects.some((e) => e.type === 'applyChange')).toBe(false);
  });

  it('y carries out exactly the plan shown; the result refreshes the tree and re-checks the chain', () => {
    const d = new Driver();
    press(d, 'E');
    d.send({ type: 'entries', items: ENTRIES });
    press(d, 'x');
    d.send({ type: 'changePlan', op: 'delete', key: 'main', plan: plan() });
    expect(press(d, 'enter')).toEqual([
      { type: 'applyChange', op: 'delete', key: 'main', expect: planSignature(plan()) },
    ]);
    expect(d.state.overlay).toBeNull();
    expect(d.state.busy).toBe("deleting entry 'main'…");
    const fx = d.send({
      type: 'changeDone',
      op: 'delete',
      key: 'main',
      sid: null,
      archived: ['cccc', 'dddd'],
      kept: ['aaaa'],
    });
    expect(d.state.busy).toBeNull();
    expect(d.state.message?.text).toBe("deleted 'main': 2 archived, 1 kept");
    expect(fx[0]).toEqual({ type: 'loadSessions' });
    expect(fx).toContainEqual({ type: 'syncChain' });
  });

  it('a plan that went stale comes back to be confirmed again; a failure says why and writes nothing', () => {
    const d = new Driver();
    press(d, 'E');
    d.send({ type: 'entries', items: ENTRIES });
    press(d, 'x');
    d.send({ type: 'changePlan', op: 'delete', key: 'main', plan: plan() });
    press(d, 'y');
    const fresh = { ...plan(), archive: plan().archive.slice(0, 1) };
    d.send({ type: 'changePlan', op: 'delete', key: 'main', plan: fresh, stale: true });
    expect(d.state.overlay).toMatchObject({ kind: 'confirm', plan: fresh });
    expect(d.state.busy).toBeNull();
    expect(d.state.message?.text).toContain('the shard changed meanwhile: nothing was done');
    expect(view(d.state).lines().join('\n')).toContain('1 session will be archived');
    press(d, 'x'); // not a key of the confirmation
    expect(d.state.overlay?.kind).toBe('confirm');
    press(d, 'y');
    d.send({ type: 'maintFailed', error: "no entry 'main'\nsecond line" });
    expect(d.state.overlay).toBeNull();
    expect(d.state.message).toMatchObject({ level: 'error', text: "no entry 'main' second line" });
    // A failing plan goes back to the list.
    press(d, 'E');
    d.send({ type: 'entries', items: ENTRIES });
    press(d, 'x');
    d.send({ type: 'maintFailed', error: "no entry 'main'" });
    expect(d.state.overlay?.kind).toBe('entries');
  });

  it('the confirmation scrolls when it is longer than the box (80x24), and wraps long reasons', () => {
    const d = new Driver(80, 24);
    press(d, 'E');
    d.send({ type: 'entries', items: ENTRIES });
    press(d, 'x');
    const many = plan();
    for (let i = 0; i < 12; i++)
      many.archive.push({
        ...many.archive[1],
        sid: `e${String(i).padStart(3, '0')}`,
        why: ['x '.repeat(60)],
      });
    d.send({ type: 'changePlan', op: 'delete', key: 'main', plan: many });
    let lines = view(d.state).lines();
    expect(lines.join('\n')).toMatch(/↑↓ 1-17\/\d+/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    press(d, 'G');
    lines = view(d.state).lines();
    expect(lines.join('\n')).toContain('Archived sessions stay readable');
    const ov = d.state.overlay as ConfirmOverlay;
    expect(ov.scroll).toBeGreaterThan(0);
    press(d, 'g');
    expect((d.state.overlay as ConfirmOverlay).scroll).toBe(0);
    const text = confirmLines(ov, 40, {}).map((l) => l.t);
    for (const t of text) expect(t.length).toBeLessThanOrEqual(40);
  });

  it('nothing is carried out while a question is running', () => {
    const d = new Driver();
    press(d, 'E');
    d.send({ type: 'entries', items: ENTRIES });
    press(d, 'x');
    d.send({ type: 'changePlan', op: 'delete', key: 'main', plan: plan() });
    d.state = { ...d.state, ask: { mode: 'ask', parent: null, session: null, question: 'q', answer: '' } };
    expect(press(d, 'y')).toEqual([]);
    expect(d.state.overlay?.kind).toBe('confirm');
    expect(d.state.message?.text).toContain('a question is still running');
  });

  it('Enter on an entry goes to its current session', () => {
    const d = new Driver();
    press(d, 'E');
    d.send({ type: 'entries', items: ENTRIES });
    press(d, 'j', 'enter');
    expect(d.state.overlay).toBeNull();
    expect(d.selKey).toBe('s:aaaa');
  });
});

describe('archiveOutline', () => {
  it('gives the archived turns depth-first with their depth in the session', () => {
    const t = (seq: number, parent: number | null, extra: object = {}) => ({
      id: seq,
      bates: `zzzz-00000${seq}`,
      sid: 'zzzz',
      seq,
      parent_bates: parent === null ? null : `zzzz-00000${parent}`,
      is_top: parent === null,
      depth: 0,
      n_children: 0,
      question: `q${seq}`,
      answer_text: '',
      cited_titles: [],
      n_cited_sources: 0,
      audit: 'manual',
      cache_key: null,
      source: null,
      source_id: null,
      created_at: '',
      node_hash: '',
      subtree_hash: '',
      ...extra,
    });
    const nodes = [
      t(1, null),
      t(2, 1),
      t(3, 1),
      t(4, 2),
      // a top turn hanging under a live turn of another session
      t(5, null, { parent_bates: 'yyyy-000001', is_top: true }),
    ];
    expect(archiveOutline(nodes).map((n) => [n.seq, n.local_depth])).toEqual([
      [1, 0],
      [2, 1],
      [4, 2],
      [3, 1],
      [5, 0],
    ]);
  });
});

// ---- the reducer with the real runtime on a real shard ---------------------------------------------------------

function harness(db: string) {
  return driveRuntime(Shard.open(db), {}, [{ type: 'loadSessions' }, { type: 'checkChain', full: true }]);
}

describe('entries and archives through the runtime', () => {
  it('deletes an entry as previewed, then browses the archived sessions read-only', () => {
    const db = tempDb();
    const s0 = Shard.open(db);
    const f = entryShard(s0);
    const preview = planDelete(s0, 'main');
    s0.close();
    const h = harness(db);
    try {
      const events = h.state.chain.events;
      h.key('E');
      expect(h.state.overlay).toMatchObject({
        kind: 'entries',
        items: [{ key: 'main', sid: f.cur.sid, family: 3 }],
      });
      h.key('x');
      const ov = h.state.overlay as ConfirmOverlay;
      expect(ov.plan).toEqual(preview);
      expect(ov.plan!.archive.map((a) => a.sid)).toEqual([f.cur.sid, f.pre.sid]);
      expect(ov.plan!.keep.map((k) => k.sid)).toEqual([f.kept.sid]);
      h.key('y');
      expect(h.state.message?.text).toBe("deleted 'main': 2 archived, 1 kept");
      expect(h.state.sessions.map((x) => x.sid)).not.toContain(f.cur.sid);
      // one entry.delete and two session.archive events, checked incrementally
      expect(h.state.chain).toMatchObject({ status: 'ok', events: events + 3 });
      expect(
        listArchives(h.shard)
          .map((a) => a.sid)
          .sort(),
      ).toEqual([f.cur.sid, f.pre.sid].sort());
      expect(listEntries(h.shard)).toEqual([]);

      h.key('A');
      const arch = h.state.sessions.filter((x) => x.archived).map((x) => x.sid);
      expect(arch.sort()).toEqual([f.cur.sid, f.pre.sid].sort());
      // the pre-compaction session: expand it, read its second turn from the archive
      const i = h.state.list.findIndex((r) => h.state.sessions[r.session].sid === f.pre.sid);
      h.key(...Array(i).fill('j'));
      h.key('l', 'l', 'j');
      expect(selectedBates(h.state)).toBe(f.pre.bates[1]);
      expect(h.state.path?.turns.map((t) => t.question)).toEqual([
        'before compaction question 1',
        'before compaction question 2',
      ]);
      expect(h.state.path?.turns[1].answer_text).toBe('before compaction answer 2');
      h.key('a');
      expect(h.state.overlay).toBeNull();
      expect(h.state.message?.text).toContain(`read-only (archived): arborist archive restore ${f.pre.sid}`);
      // b lists its branch points from the archive (none)
      h.key('b');
      expect(h.state.overlay).toMatchObject({ kind: 'branches', items: [] });
      h.key('escape');

      // R restores it: live again, one session.restore event, chain intact
      h.key('R', 'y');
      expect(h.state.message?.text).toBe(`restored ${f.pre.sid} (2 turns): live again`);
      expect(h.state.sessions.find((x) => x.sid === f.pre.sid)?.archived).toBeUndefined();
      expect(h.state.chain).toMatchObject({ status: 'ok', events: events + 4 });
      expect(h.shard.verify().ok).toBe(true);
    } finally {
      h.close();
    }
  });

  it('refuses to act on a plan that changed after it was shown: nothing is written', () => {
    const db = tempDb();
    const s0 = Shard.open(db);
    const f = entryShard(s0);
    s0.close();
    const h = harness(db);
    try {
      h.key('E', 'x');
      const shown = (h.state.overlay as ConfirmOverlay).plan!;
      expect(shown.archive.map((a) => a.sid)).toContain(f.pre.sid);
      // Another writer forks from the pre-compaction session: it must now be kept.
      const other = Shard.open(db);
      other.addTurn({
        parent: f.pre.bates[0],
        question: 'late fork',
        answer_text: 'x',
        session: f.other.sid,
      });
      const head = other.audit.head().seq;
      other.close();
      h.key('y');
      expect(h.state.message?.text).toContain('the shard changed meanwhile: nothing was done');
      const again = h.state.overlay as ConfirmOverlay;
      expect(again.plan!.keep.map((k) => k.sid)).toContain(f.pre.sid);
      expect(h.shard.audit.head().seq).toBe(head);
      expect(listArchives(h.shard)).toEqual([]);
      // confirming the new plan does it
      h.key('y');
      expect(listArchives(h.shard).map((a) => a.sid)).toEqual([f.cur.sid]);
      expect(h.shard.chainCheck().ok).toBe(true);
    } finally {
      h.close();
    }
  });

  it('an unknown entry (deleted by another writer) is reported, not thrown', () => {
    const db = tempDb();
    const s0 = Shard.open(db);
    entryShard(s0);
    s0.close();
    const h = harness(db);
    try {
      h.key('E');
      const other = Shard.open(db);
      deleteEntry(other, 'main');
      other.close();
      h.key('r');
      expect(h.state.message).toMatchObject({ level: 'error', text: "no entry 'main'" });
      expect(h.state.overlay?.kind).toBe('entries');
    } finally {
      h.close();
    }
  });
});
