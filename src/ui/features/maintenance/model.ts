/**
 * The browser's side of entries and the archive tier (issue 6, DESIGN.md section 7, docs/sessions.md "Entries,
 * archiving and retention"), pure like the reducer: no terminal, no SQLite.
 *
 * - `A` shows archived sessions after the live ones, marked and read-only: their turns come from the archive
 *   bodies (the runtime reads them with readArchive), ask and fork on them are refused, `R` restores one after a
 *   confirmation.
 * - `E` lists the entries; on one, `r` resets it and `x` (or Delete) deletes it. Both first show the store's own
 *   plan (planReset / planDelete): exactly what will be archived and what is kept, and why. `y`/Enter carries it
 *   out (the runtime re-plans inside the write transaction and refuses when the plan changed meanwhile), `n`/Esc
 *   goes back without writing anything.
 */
import type { ActionId } from '../../../keymap/index.js';
import type { ChangePlan, TurnNode } from '../../../store/index.js';
import { shortTime } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { wrap } from '../../../text/width.js';
import type { Effect, Message, State } from '../../core/state.js';
import type { TLine } from '../transcript/model.js';
import { type OutlineNode, type SessionLike, sessionKey } from '../tree/model.js';

// ---- data ---------------------------------------------------------------------------------------------------

/** Carried by a session of the tree that is archived (SessionLike.archived). */
export interface ArchivedTag {
  reason: string;
  archived_at: string;
}

/** One entry in the entries overlay. Text is raw (from the shard): painters sanitise it. */
export interface EntryItem {
  key: string;
  /** The entry's current session ('' when it names none). */
  sid: string;
  /** Its label, when the session is live and has one. */
  label: string | null;
  /** Its number of turns, or null when the session is not live (archived or unknown). */
  n_nodes: number | null;
  /** Sessions in the entry's artifact family. */
  family: number;
}

export type ChangeOp = 'reset' | 'delete';

export interface EntriesOverlay {
  kind: 'entries';
  items: EntryItem[] | null;
  sel: number;
  top: number;
}

export type ConfirmWhat =
  | { op: ChangeOp; key: string }
  | {
      op: 'restore';
      sid: string;
      label: string | null;
      n_nodes: number;
      reason: string;
      archived_at: string;
    };

export interface ConfirmOverlay {
  kind: 'confirm';
  what: ConfirmWhat;
  /** Reset and delete: the store's plan, null while it is being worked out. */
  plan: ChangePlan | null;
  scroll: number;
  /** Where n/Esc goes back to (the entries list it was opened from). */
  back: EntriesOverlay | null;
}

export type MaintenanceAction =
  | { type: 'entries'; items: EntryItem[] }
  /** `stale`: the shard changed since the plan shown was made; this is the new one, nothing was written. */
  | { type: 'changePlan'; op: ChangeOp; key: string; plan: ChangePlan; stale?: boolean }
  | {
      type: 'changeDone';
      op: ChangeOp;
      key: string;
      /** The entry's new session (reset) or null (delete). */
      sid: string | null;
      archived: string[];
      kept: string[];
    }
  | { type: 'restoreDone'; sids: string[]; n_nodes: number }
  | { type: 'maintFailed'; error: string };

export type MaintenanceEffect =
  | { type: 'loadEntries' }
  | { type: 'planChange'; op: ChangeOp; key: string }
  /** Carry out a reset or delete, but only if the plan is still the one confirmed (`expect`: planSignature). */
  | { type: 'applyChange'; op: ChangeOp; key: string; expect: string }
  | { type: 'restoreArchive'; sid: string };

type Result = [State, Effect[]];

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What a confirmation promised: the sessions archived and kept. Compared again inside the write transaction. */
export function planSignature(p: ChangePlan): string {
  return JSON.stringify({
    previous: p.previous_sid,
    archive: p.archive.map((a) => a.sid),
    keep: p.keep.map((k) => k.sid),
  });
}

// ---- archived sessions in the tree --------------------------------------------------------------------------

const archivedSets = new WeakMap<readonly SessionLike[], ReadonlySet<string>>();

/** The sids of the archived sessions in a sessions list (computed once per list). */
export function archivedSet(sessions: readonly SessionLike[]): ReadonlySet<string> {
  let set = archivedSets.get(sessions);
  if (!set) {
    set = new Set(sessions.filter((x) => x.archived).map((x) => x.sid));
    archivedSets.set(sessions, set);
  }
  return set;
}

/**
 * The tree's sessions: the live ones, then (when shown) the archived ones. `archived` is the fresh list from the
 * runtime; without it the archived sessions already in the state stay. A sid live again (restored) is shown once,
 * live.
 */
export function mergeSessions(
  s: State,
  live: SessionLike[],
  archived: SessionLike[] | undefined,
): SessionLike[] {
  if (!s.showArchived) return live;
  const alive = new Set(live.map((x) => x.sid));
  const arch = (archived ?? s.sessions.filter((x) => x.archived)).filter((x) => !alive.has(x.sid));
  return arch.length > 0 ? [...live, ...arch] : live;
}

/** The session of the selected row, when it is archived. */
export function selectedArchived(s: State): SessionLike | null {
  const r = s.list[s.sel];
  const ses = r ? s.sessions[r.si] : undefined;
  return ses?.archived ? ses : null;
}

export function restoreHint(sid: string, keyOf: State['keyOf']): string {
  const r = keyOf.restore ? `${keyOf.restore} restores it, or ` : '';
  return `${r}arborist archive restore ${sid}`;
}

/** Why ask and fork do nothing on an archived session (short: the status bar of 120 columns shows it whole). */
export function refusal(sid: string, keyOf: State['keyOf']): string {
  return `read-only (archived): arborist archive restore ${sid}${keyOf.restore ? `, or ${keyOf.restore}` : ''}`;
}

/** The transcript for an archived session's row. */
export function archivedSessionLines(
  ses: SessionLike,
  keyOf: State['keyOf'],
  expanded: boolean,
  width: number,
): TLine[] {
  const tag = ses.archived!;
  const out: TLine[] = [];
  const add = (role: TLine['role'], text: string) => {
    for (const l of wrap(text, Math.max(4, width))) out.push({ role, text: l });
  };
  add('session', `session ${ses.sid}${ses.label ? ` · ${oneLine(ses.label)}` : ''}`);
  add(
    'meta',
    `archived ${shortTime(tag.archived_at)} (reason ${oneLine(tag.reason)}) · ${plural(ses.n_nodes, 'turn')}`,
  );
  out.push({ role: 'blank', text: '' });
  add('info', 'Read-only: its turns can be read, not asked under or forked from.');
  add('info', `To bring it back: ${restoreHint(ses.sid, keyOf)}.`);
  out.push({ role: 'blank', text: '' });
  add('info', expanded ? 'Down/j walks its turns.' : 'Right/l (or Enter) expands it to its turns.');
  return out;
}

/**
 * An archived session's turns (by seq, as readArchive gives them) as an outline: depth-first, children by seq, each
 * with its depth in the session. Children in other sessions are not listed (they are archived too, or the session
 * could not have been archived).
 */
export function archiveOutline(nodes: readonly TurnNode[], qChars = 160): OutlineNode[] {
  const own = new Set(nodes.map((n) => n.bates));
  const kids = new Map<string, TurnNode[]>();
  const tops: TurnNode[] = [];
  for (const n of nodes) {
    if (n.is_top || n.parent_bates === null || !own.has(n.parent_bates)) tops.push(n);
    else {
      const l = kids.get(n.parent_bates);
      if (l) l.push(n);
      else kids.set(n.parent_bates, [n]);
    }
  }
  const bySeq = (a: TurnNode, b: TurnNode) => a.seq - b.seq;
  tops.sort(bySeq);
  for (const l of kids.values()) l.sort(bySeq);
  const out: OutlineNode[] = [];
  const stack: [TurnNode, number][] = [];
  for (let i = tops.length - 1; i >= 0; i--) stack.push([tops[i], 0]);
  while (stack.length > 0) {
    const [n, d] = stack.pop()!;
    out.push({
      id: n.id,
      bates: n.bates,
      sid: n.sid,
      seq: n.seq,
      parent_bates: n.parent_bates,
      is_top: n.is_top,
      n_children: n.n_children,
      question: n.question.slice(0, qChars),
      audit: n.audit,
      created_at: n.created_at,
      cross: false,
      local_depth: d,
    });
    const ch = kids.get(n.bates);
    if (ch) for (let i = ch.length - 1; i >= 0; i--) stack.push([ch[i], d + 1]);
  }
  return out;
}

// ---- the confirmation's text --------------------------------------------------------------------------------

export type ConfirmStyle = 'text' | 'head' | 'item' | 'why' | 'dim';

export function confirmTitle(ov: ConfirmOverlay): string {
  const w = ov.what;
  if (w.op === 'restore') return `restore archived session ${w.sid}`;
  return `${w.op} entry '${oneLine(w.key)}'`;
}

/** The confirmation's lines at `width` cells, all text sanitised. */
export function confirmLines(
  ov: ConfirmOverlay,
  width: number,
  keyOf: State['keyOf'],
): { t: string; k: ConfirmStyle }[] {
  const w = Math.max(8, width);
  const out: { t: string; k: ConfirmStyle }[] = [];
  // Wrapped lines hang two cells further in than the first (`indent`).
  const para = (text: string, k: ConfirmStyle, indent = '') => {
    const hang = indent === '' ? '' : `${indent}  `;
    const first = wrap(text, w - indent.length)[0];
    out.push({ t: indent + first, k });
    // `first` is a prefix of the (one-line) text: the rest wraps at the hanging indent.
    const rest = text.slice(first.length).trimStart();
    if (rest !== '') for (const l of wrap(rest, w - hang.length)) out.push({ t: hang + l, k });
  };
  const what = ov.what;
  if (what.op === 'restore') {
    const label = what.label ? ` · ${oneLine(what.label)}` : '';
    para(`Restore session ${what.sid}${label} (${plural(what.n_nodes, 'turn')}).`, 'text');
    para(`Archived ${shortTime(what.archived_at)} with reason ${oneLine(what.reason)}.`, 'text');
    out.push({ t: '', k: 'text' });
    para(
      'It becomes live again with the same Bates ids, content and hashes: one audit event (session.restore).',
      'dim',
    );
    para(
      'A session hanging under another archived session is refused: restore both with arborist archive restore SID SID.',
      'dim',
    );
    return out;
  }
  const p = ov.plan;
  if (!p) {
    para('working out what would be archived…', 'dim');
    return out;
  }
  const reason = what.op === 'reset' ? 'reset' : 'deleted';
  const n = `${plural(p.archive.length, 'session')} will be archived (reason ${reason}), ${p.keep.length} kept.`;
  if (what.op === 'reset') para(`Entry '${oneLine(what.key)}' moves to a new, empty session. ${n}`, 'text');
  else para(`Entry '${oneLine(what.key)}' goes. ${n}`, 'text');
  const item = (x: { sid: string; label: string | null; n_nodes: number; why: string[] }) => {
    const label = x.label ? ` · ${oneLine(x.label)}` : '';
    para(`${x.sid}${label} · ${plural(x.n_nodes, 'turn')}`, 'item', '  ');
    for (const y of x.why) para(oneLine(y), 'why', '    ');
  };
  out.push({ t: '', k: 'text' });
  if (p.archive.length === 0) para('Nothing will be archived.', 'head');
  else {
    para('Will be archived:', 'head');
    for (const a of p.archive) item(a);
  }
  if (p.keep.length > 0) {
    out.push({ t: '', k: 'text' });
    para('Kept:', 'head');
    for (const k of p.keep) item(k);
  }
  if (p.gone.length > 0) {
    out.push({ t: '', k: 'text' });
    para('Already gone from the family:', 'head');
    for (const g of p.gone) para(`${g.sid} (${g.state})`, 'dim', '  ');
  }
  out.push({ t: '', k: 'text' });
  const show = keyOf.archived ? ` (${keyOf.archived} shows them)` : '';
  para(
    `Archived sessions stay readable${show} and restorable (arborist archive restore SID). One audit event for the ${what.op}, one per archived session.`,
    'dim',
  );
  return out;
}

// ---- keys ---------------------------------------------------------------------------------------------------

function msg(s: State, text: string, level: 'info' | 'error' = 'info'): Message {
  return { text: oneLine(text), level, at: s.now };
}

export interface OverlayEnv {
  /** Rows of a page in the overlay. */
  page: number;
  /** Text width inside the overlay. */
  width: number;
  /** Close the overlay and select the session's row (when it is in the tree). */
  gotoSession(s: State, sid: string): State;
}

function clampList(sel: number, top: number, n: number, page: number): { sel: number; top: number } {
  const i = Math.max(0, Math.min(n - 1, sel));
  let t = top;
  if (i < t) t = i;
  if (i >= t + page) t = i - page + 1;
  return { sel: Math.max(0, i), top: Math.max(0, t) };
}

function moveBy(act: ActionId | null, cur: number, page: number, last: number): number | null {
  switch (act) {
    case 'move.down':
      return cur + 1;
    case 'move.up':
      return cur - 1;
    case 'page.down':
      return cur + page;
    case 'page.up':
      return cur - page;
    case 'move.first':
      return 0;
    case 'move.last':
      return last;
    default:
      return null;
  }
}

/** Keys while the entries list or a confirmation is open. */
export function keyMaintenance(
  s: State,
  ov: EntriesOverlay | ConfirmOverlay,
  act: ActionId | null,
  key: string,
  env: OverlayEnv,
): Result {
  if (act === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  if (ov.kind === 'entries') {
    if (act === 'close' || act === 'entries') return [{ ...s, overlay: null }, []];
    const items = ov.items ?? [];
    const it = items[ov.sel];
    if (it && (key === 'r' || key === 'x' || key === 'delete')) {
      const op: ChangeOp = key === 'r' ? 'reset' : 'delete';
      return [
        { ...s, overlay: { kind: 'confirm', what: { op, key: it.key }, plan: null, scroll: 0, back: ov } },
        [{ type: 'planChange', op, key: it.key }],
      ];
    }
    if (it && (act === 'select' || act === 'tree.right')) {
      if (!it.sid || it.n_nodes === null)
        return [{ ...s, message: msg(s, `entry '${it.key}' names no live session`) }, []];
      return [env.gotoSession({ ...s, overlay: null }, it.sid), []];
    }
    const to = moveBy(act, ov.sel, env.page, items.length - 1);
    if (to === null) return [s, []];
    return [{ ...s, overlay: { ...ov, ...clampList(to, ov.top, items.length, env.page) } }, []];
  }
  // The confirmation: y/Enter confirms, n/Esc goes back; nothing else writes.
  if (key === 'n' || act === 'close') return [{ ...s, overlay: ov.back }, []];
  if (key === 'y' || key === 'enter') {
    const w = ov.what;
    // The question's parent could be archived under it: one thing at a time.
    if (s.ask)
      return [{ ...s, message: msg(s, 'a question is still running (Esc cancels it)', 'error') }, []];
    if (w.op === 'restore') {
      return [{ ...s, overlay: null, busy: `restoring ${w.sid}…` }, [{ type: 'restoreArchive', sid: w.sid }]];
    }
    if (!ov.plan) return [s, []];
    return [
      {
        ...s,
        overlay: null,
        busy: `${w.op === 'reset' ? 'resetting' : 'deleting'} entry '${oneLine(w.key)}'…`,
      },
      [{ type: 'applyChange', op: w.op, key: w.key, expect: planSignature(ov.plan) }],
    ];
  }
  const n = confirmLines(ov, env.width, s.keyOf).length;
  const max = Math.max(0, n - env.page);
  const to = moveBy(act, ov.scroll, env.page, max);
  if (to === null) return [s, []];
  return [{ ...s, overlay: { ...ov, scroll: Math.max(0, Math.min(max, to)) } }, []];
}

/** `E`: the entries list (loaded by the runtime). */
export function openEntries(s: State): Result {
  return [{ ...s, overlay: { kind: 'entries', items: null, sel: 0, top: 0 } }, [{ type: 'loadEntries' }]];
}

/** `R` on an archived session (or one of its turns): the restore confirmation. */
export function openRestore(s: State): Result {
  const ses = selectedArchived(s);
  if (!ses) {
    const how = s.showArchived ? '' : ` (${s.keyOf.archived ?? 'A'} shows them)`;
    return [{ ...s, message: msg(s, `select an archived session to restore it${how}`) }, []];
  }
  const tag = ses.archived!;
  return [
    {
      ...s,
      overlay: {
        kind: 'confirm',
        what: {
          op: 'restore',
          sid: ses.sid,
          label: ses.label,
          n_nodes: ses.n_nodes,
          reason: tag.reason,
          archived_at: tag.archived_at,
        },
        plan: null,
        scroll: 0,
        back: null,
      },
    },
    [],
  ];
}

// ---- results from the runtime -------------------------------------------------------------------------------

/**
 * The runtime's answers. `refresh` is the reducer's data-changed step (sessions, open outlines, the selected path,
 * and an incremental chain check: the reset or delete appended events).
 */
export function onMaintenance(s: State, a: MaintenanceAction, refresh: (s: State) => Result): Result {
  switch (a.type) {
    case 'entries': {
      const ov = s.overlay;
      if (ov?.kind !== 'entries') return [s, []];
      const sel = Math.max(0, Math.min(ov.sel, a.items.length - 1));
      return [{ ...s, overlay: { ...ov, items: a.items, sel, top: Math.min(ov.top, sel) } }, []];
    }
    case 'changePlan': {
      const ov = s.overlay;
      const same = ov?.kind === 'confirm' && ov.what.op === a.op && 'key' in ov.what && ov.what.key === a.key;
      if (a.stale) {
        // Nothing was written: show the new plan to confirm again.
        const back = same ? ov.back : null;
        return [
          {
            ...s,
            busy: null,
            overlay: { kind: 'confirm', what: { op: a.op, key: a.key }, plan: a.plan, scroll: 0, back },
            message: msg(s, 'the shard changed meanwhile: nothing was done; here is the new plan', 'error'),
          },
          [],
        ];
      }
      if (!same) return [s, []];
      return [{ ...s, overlay: { ...ov, plan: a.plan, scroll: 0 } }, []];
    }
    case 'changeDone': {
      // Short: it must fit the status bar of an 80-column terminal.
      const done = a.op === 'reset' ? `reset '${a.key}'` : `deleted '${a.key}'`;
      const text = `${done}: ${a.archived.length} archived, ${a.kept.length} kept`;
      const n: State = { ...s, busy: null, overlay: null, message: msg(s, text) };
      // After a reset, the entry's new session is selected once the sessions are loaded again.
      return refresh(a.op === 'reset' && a.sid ? { ...n, selKey: sessionKey(a.sid) } : n);
    }
    case 'restoreDone': {
      const text = `restored ${a.sids.join(', ')} (${plural(a.n_nodes, 'turn')}): live again`;
      return refresh({ ...s, busy: null, overlay: null, message: msg(s, text) });
    }
    case 'maintFailed': {
      const ov = s.overlay;
      const overlay = ov?.kind === 'confirm' ? ov.back : ov?.kind === 'entries' ? null : ov;
      return [{ ...s, busy: null, overlay, message: msg(s, a.error, 'error') }, []];
    }
  }
}
