/**
 * Entries and the archive tier, the browser's side (docs/sessions.md "Entries, archiving and retention"): the
 * overlays' data and the text they show, pure: no terminal, no SQLite. Their keys are in update.ts.
 *
 * - `A` shows archived sessions after the live ones, marked and read-only: their turns come from the archive
 *   bodies (the runtime reads them with readArchive), ask and fork on them are refused, `R` restores one after a
 *   confirmation.
 * - `E` lists the entries; on one, `r` resets it and `x` (or Delete) deletes it. Both first show the store's own
 *   plan (planReset / planDelete): exactly what will be archived and what is kept, and why. `y`/Enter carries it
 *   out (the runtime re-plans inside the write transaction and refuses when the plan changed meanwhile), `n`/Esc
 *   goes back without writing anything.
 */
import type { KeyNames } from '../../../keymap/index.js';
import type { ChangePlan } from '../../../store/index.js';
import { shortTime } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { wrap } from '../../../text/width.js';
import type { TLine } from '../transcript/model.js';
import type { SessionLike } from '../tree/model.js';

// ---- data ---------------------------------------------------------------------------------------------------

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

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

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
 * runtime; without it the archived sessions already shown (in `current`) stay. A sid live again (restored) is shown
 * once, live.
 */
export function mergeSessions(
  showArchived: boolean,
  current: readonly SessionLike[],
  live: readonly SessionLike[],
  archived: readonly SessionLike[] | undefined,
): readonly SessionLike[] {
  if (!showArchived) return live;
  const alive = new Set(live.map((x) => x.sid));
  const arch = (archived ?? current.filter((x) => x.archived)).filter((x) => !alive.has(x.sid));
  return arch.length > 0 ? [...live, ...arch] : live;
}

export function restoreHint(sid: string, keyOf: KeyNames): string {
  const r = keyOf.restore ? `${keyOf.restore} restores it, or ` : '';
  return `${r}arborist archive restore ${sid}`;
}

/** Why ask and fork do nothing on an archived session (short: the status bar of 120 columns shows it whole). */
export function refusal(sid: string, keyOf: KeyNames): string {
  return `read-only (archived): arborist archive restore ${sid}${keyOf.restore ? `, or ${keyOf.restore}` : ''}`;
}

/** The transcript for an archived session's row. */
export function archivedSessionLines(
  ses: SessionLike,
  keyOf: KeyNames,
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
  keyOf: KeyNames,
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
