/** `S` and the running sync's answers (model.ts): the state moves, the runtime runs `arborist sync`. */
import { msg, type Result } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { SYNC_NOT_SET_UP, type SyncAction, type SyncRun, syncText } from './model.js';

export function startSync(s: State): Result {
  if (s.sync) return [{ ...s, message: msg(s, 'a sync is already running') }, []];
  const run: SyncRun = { progress: null };
  return [{ ...s, sync: run, busy: syncText(run) }, [{ type: 'sync' }]];
}

/** `refresh`: what the browser does after another writer changed the shard (reload what is shown). */
export function onSync(s: State, a: SyncAction, refresh: (s: State) => Result): Result {
  if (a.type === 'syncProgress') {
    if (!s.sync) return [s, []];
    const run: SyncRun = { progress: a.progress };
    return [{ ...s, sync: run, busy: syncText(run) }, []];
  }
  const done: State = {
    ...s,
    sync: null,
    busy: s.sync && s.busy === syncText(s.sync) ? null : s.busy,
    message: a.notSetUp
      ? msg(s, SYNC_NOT_SET_UP)
      : a.error
        ? msg(s, `sync failed: ${a.error}`, 'error')
        : msg(s, a.summary),
  };
  return a.changed ? refresh(done) : [done, []];
}
