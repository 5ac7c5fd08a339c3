import { buildKeymap } from '../../src/keymap/index.js';
import type { OutlineNode } from '../../src/store/index.js';
import type { Action } from '../../src/ui/core/actions.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { initialState, type State } from '../../src/ui/core/state.js';
import { update } from '../../src/ui/core/update.js';
import type { Origin } from '../../src/ui/features/tree/groups.js';
import type { SessionLike } from '../../src/ui/features/tree/model.js';

export function node(sid: string, seq: number, depth: number, opts: Partial<OutlineNode> = {}): OutlineNode {
  const bates = `${sid}-${String(seq).padStart(6, '0')}`;
  return {
    id: seq,
    bates,
    sid,
    seq,
    parent_bates: null,
    is_top: depth === 0,
    n_children: 0,
    question: `question ${seq} of ${sid}`,
    audit: 'manual',
    created_at: '2026-11-01T10:00:00.000Z',
    cross: false,
    local_depth: depth,
    ...opts,
  };
}

/**
 * Session aaaa:        1 ─ 2 ┬ 3 ─ 4
 *                             └ 5 ─ ↳ bbbb-000001 (cross)
 * Session bbbb:        1 (top, parent aaaa-000005) ─ 2
 */
export const A: OutlineNode[] = [
  node('aaaa', 1, 0, { n_children: 1 }),
  node('aaaa', 2, 1, { parent_bates: 'aaaa-000001', n_children: 2 }),
  node('aaaa', 3, 2, { parent_bates: 'aaaa-000002', n_children: 1 }),
  node('aaaa', 4, 3, { parent_bates: 'aaaa-000003' }),
  node('aaaa', 5, 2, { parent_bates: 'aaaa-000002', n_children: 1 }),
  { ...node('bbbb', 1, 3, { parent_bates: 'aaaa-000005', n_children: 1, is_top: true }), cross: true },
];
export const B: OutlineNode[] = [
  node('bbbb', 1, 0, { parent_bates: 'aaaa-000005', n_children: 1, is_top: true }),
  node('bbbb', 2, 1, { parent_bates: 'bbbb-000001' }),
];

export const SESSIONS: SessionLike[] = [
  { sid: 'bbbb', label: 'second', created_at: '2026-11-02T00:00:00.000Z', n_nodes: 2 },
  { sid: 'aaaa', label: 'first', created_at: '2026-11-01T00:00:00.000Z', n_nodes: 5 },
];

/** Origins the Driver answers with, by sid (tests set them); any other session was asked here. */
export const ORIGINS = new Map<string, Origin>();

function originsOf(sids: readonly string[]): [string, Origin][] {
  return sids.map((sid) => [sid, ORIGINS.get(sid) ?? { agent: 'arborist', project: '', here: true }]);
}

/** Runs actions through the reducer, answering load effects from the fixtures above. */
export class Driver {
  state: State;
  effects: Effect[] = [];
  constructor(cols = 100, rows = 30, agents?: Record<string, { name: string; badge: string }>) {
    this.state = initialState({
      cols,
      rows,
      keymap: buildKeymap(),
      now: Date.parse('2026-11-03T00:00:00Z'),
      agents,
    });
    this.send({ type: 'sessions', sessions: SESSIONS });
  }
  send(a: Action): Effect[] {
    const [s, fx] = update(this.state, a);
    this.state = s;
    this.effects.push(...fx);
    for (const e of fx) {
      if (e.type === 'loadOutline')
        this.send({ type: 'outline', sid: e.sid, nodes: e.sid === 'aaaa' ? A : B, reveal: e.reveal });
      // Titles and origins as the runtime gives them: sessions asked here, unless ORIGINS names another.
      if (e.type === 'loadTitles')
        this.send({ type: 'titles', titles: e.sids.map((sid) => [sid, '']), origins: originsOf(e.sids) });
      if (e.type === 'loadOrigins') {
        const s = this.state;
        this.send({ type: 'origins', origins: originsOf(s.sessions.map((x) => x.sid)), of: s.sessions });
      }
      if (e.type === 'reveal') {
        const sid = e.bates.slice(0, 4);
        this.send({ type: 'outline', sid, nodes: sid === 'aaaa' ? A : B, reveal: e.bates });
      }
    }
    return fx;
  }
  key(...names: string[]): Effect[] {
    const km = buildKeymap();
    const out: Effect[] = [];
    for (const k of names) {
      const ch = k.length === 1 ? k : k === 'space' ? ' ' : undefined;
      out.push(...this.send({ type: 'key', key: k, ch, action: km.byKey.get(k) ?? null }));
    }
    return out;
  }
  get selKey(): string | null {
    return this.state.selKey;
  }
}
