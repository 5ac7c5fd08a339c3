import { buildKeymap } from '../../src/keymap/index.js';
import type { Shard } from '../../src/store/index.js';
import type { Action } from '../../src/ui/core/actions.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { initialState, type State } from '../../src/ui/core/state.js';
import { update } from '../../src/ui/core/update.js';
import { Runtime, type RuntimeOptions } from '../../src/ui/runtime/runtime.js';

/**
 * The reducer and the real runtime on a real shard, without a terminal: what app.ts wires, minus the screen.
 * Chain checks run inline unless `opts` says otherwise.
 */
export function driveRuntime(
  shard: Shard,
  opts: RuntimeOptions = {},
  first: Effect[] = [{ type: 'loadSessions' }],
  onAction?: (a: Action) => void,
) {
  const km = buildKeymap();
  let state: State = initialState({ cols: 100, rows: 30, keymap: km });
  const rt = new Runtime(
    shard,
    (a) => dispatch(a),
    () => state,
    { inlineChecks: true, ...opts },
  );
  function dispatch(a: Action): void {
    onAction?.(a);
    const [s, fx] = update(state, a);
    state = s;
    rt.run(fx);
  }
  const key = (...ks: string[]) => {
    for (const k of ks) {
      // As app.ts does before any input: the sessions the first read left out are read first.
      rt.completeSessions();
      dispatch({
        type: 'key',
        key: k,
        ch: [...k].length === 1 ? k : undefined,
        action: km.byKey.get(k) ?? null,
      });
    }
  };
  rt.run(first);
  return {
    shard,
    rt,
    key,
    dispatch,
    get state() {
      return state;
    },
    /** What app.ts's timer does: notice another writer. */
    poll() {
      if (rt.changed()) dispatch({ type: 'dataChanged' });
    },
    close() {
      rt.close();
      shard.close();
    },
  };
}

/** Waits for pred, polling every 5 ms; throws after `ms`. */
export async function until(pred: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
