/**
 * update(state, action) -> [state, effects]: every decision the TUI makes, with no terminal and no SQLite, so all
 * of it is unit-testable. This is only the router: each action goes to the feature it concerns (features/*), and
 * key presses to core/keys.ts. Effects are data; the runtime performs them and answers with actions.
 */
import { onAskChunk, onAskDone, onAskFailed } from '../features/ask/update.js';
import { onBranches } from '../features/branches/update.js';
import { commandOutline, onArrived } from '../features/command/update.js';
import { onFindFailed, onFound, onPreviewed, withPreview } from '../features/find/update.js';
import { onMaintenance } from '../features/maintenance/update.js';
import { onResume } from '../features/resume/update.js';
import { onChainDone, onChainProgress, onChainStart, onStateDone } from '../features/status/update.js';
import { onSync } from '../features/sync/update.js';
import { onDetails, onPath, withDetails } from '../features/transcript/update.js';
import { select } from '../features/tree/select.js';
import { onMouse, onOrigins, onOutline, onSessions, onTitles } from '../features/tree/update.js';
import type { Action } from './actions.js';
import type { Effect } from './effects.js';
import { onKey } from './keys.js';
import { importing, msg, type Result, selectedBates, treeHeight } from './selectors.js';
import type { State } from './state.js';

export function update(s: State, a: Action): Result {
  const [m, fx] = step(s, a);
  withPath(m, fx);
  if (a.type !== 'titles') withTitles(m, fx);
  if (a.type !== 'origins') withOrigins(m, fx);
  const n = withPreview(withDetails(m, fx), fx);
  return [n, fx];
}

function step(s: State, a: Action): Result {
  switch (a.type) {
    case 'key':
      return onKey(s, a.key, a.ch);
    case 'resize': {
      const n = { ...s, cols: a.cols, rows: a.rows };
      return [select(n, n.sel), []];
    }
    case 'mouse':
      return onMouse(s, a.kind, a.x, a.y);
    case 'tick':
      return [{ ...s, now: a.now }, []];
    case 'sessions':
      return onSessions(s, a.sessions, a.archived, a.total);
    case 'outline': {
      const [n, fx] = onOutline(s, a.sid, a.nodes, a.reveal);
      const [m, more] = commandOutline(n, a.sid);
      return [m, [...fx, ...more]];
    }
    case 'titles':
      return onTitles(s, a.titles, a.origins);
    case 'origins':
      return onOrigins(s, a.origins, a.of);
    case 'path':
      return onPath(s, a.bates, a.turns, a.error);
    case 'details':
      return onDetails(s, a.entries);
    case 'dataChanged':
      return onDataChanged(s);
    case 'chainStart':
      return onChainStart(s, a.full, a.total);
    case 'chainProgress':
      return onChainProgress(s, a.done);
    case 'chainDone':
      return onChainDone(s, a.result, a.full);
    case 'stateDone':
      return onStateDone(s, a.result);
    case 'askChunk':
      return onAskChunk(s, a.text);
    case 'askDone':
      return onAskDone(s, a.bates, a.createdSession);
    case 'askFailed':
      return onAskFailed(s, a.error, a.cancelled === true);
    case 'branches':
      return onBranches(s, a.sid, a.items);
    case 'arrived':
      return onArrived(s, a.bates, a.follow);
    case 'found':
      return onFound(s, a);
    case 'findFailed':
      return onFindFailed(s, a.seq, a.error);
    case 'previewed':
      return onPreviewed(s, a);
    case 'entries':
    case 'changePlan':
    case 'changeDone':
    case 'restoreDone':
    case 'maintFailed':
      return onMaintenance(s, a, onDataChanged);
    case 'resumePlan':
    case 'resumeRefused':
    case 'resumeDone':
    case 'resumeFailed':
      return onResume(s, a, onDataChanged);
    case 'syncProgress':
    case 'syncDone':
      return onSync(s, a, onDataChanged);
    case 'historiesProgress':
      // Only while the import is the thing shown as busy (a late line after its end changes nothing).
      return [importing(s) ? { ...s, busy: a.text } : s, []];
    case 'historiesImported':
      return [
        {
          ...s,
          // The sessions the import wrote last come with the reload below, after it ended: a cursor nobody moved
          // goes on following the newest session (tree/update.ts onSessions) rather than staying on a lower row.
          ...(s.sel === 0 && importing(s) ? { selKey: null } : {}),
          busy: null,
          message: a.failed
            ? msg(s, `import failed: ${a.failed}`, 'error')
            : msg(
                s,
                `imported ${a.turns.toLocaleString('en-US')} ${a.turns === 1 ? 'turn' : 'turns'}${a.problems > 0 ? ` (${a.problems} ${a.problems === 1 ? 'record' : 'records'} skipped: arborist import shows them)` : ''}`,
              ),
        },
        [{ type: 'loadSessions' }, { type: 'syncChain' }],
      ];
    case 'demoBuilt':
      return [
        { ...s, busy: null, message: msg(s, 'demo loaded: → opens a session') },
        [{ type: 'loadSessions' }, { type: 'syncChain' }],
      ];
    case 'message':
      return [{ ...s, busy: null, message: msg(s, a.text, a.level) }, []];
    default:
      return [s, []];
  }
}

/** Another writer (or our own maintenance) changed the shard: reload what is shown, check the new events. */
function onDataChanged(s: State): Result {
  const fx: Effect[] = [{ type: 'loadSessions' }];
  for (const sid of s.expanded) fx.push({ type: 'loadOutline', sid });
  // Cached outlines of collapsed sessions may be stale now.
  const outlines = new Map([...s.outlines].filter(([k]) => s.expanded.has(k)));
  const bates = selectedBates(s);
  if (bates) fx.push({ type: 'loadPath', bates });
  fx.push({ type: 'syncChain' });
  return [{ ...s, outlines }, fx];
}

/** After any step: if the selected turn's path is not the one loaded, ask for it. */
function withPath(s: State, fx: Effect[]): void {
  const bates = selectedBates(s);
  if (!bates || s.path?.bates === bates) return;
  if (!fx.some((e) => e.type === 'loadPath' && e.bates === bates)) fx.push({ type: 'loadPath', bates });
}

/** Sessions on screen whose title and origin are not known yet. */
function withTitles(s: State, fx: Effect[]): void {
  const h = treeHeight(s);
  const missing: string[] = [];
  for (let i = s.top; i < Math.min(s.list.length, s.top + h); i++) {
    const r = s.list[i];
    if (r.node >= 0 || r.session < 0) continue;
    const ses = s.sessions[r.session];
    // Labelled sessions too: their agent and project come with the titles.
    if (s.titles.has(ses.sid)) continue;
    missing.push(ses.sid);
  }
  if (missing.length > 0) fx.push({ type: 'loadTitles', sids: missing });
}

/** Grouping and filtering need every session's origin: asked for once per sessions list (the runtime reads the missing). */
function withOrigins(s: State, fx: Effect[]): void {
  const wanted = s.grouping !== 'none' || s.filter !== '' || s.overlay?.kind === 'filter';
  if (wanted && s.loaded && s.originsFor !== s.sessions) fx.push({ type: 'loadOrigins' });
}
