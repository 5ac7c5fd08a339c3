/**
 * The first screen reads only the newest sessions that fit on it; the rest follow before any input, and the list,
 * the selection, the scroll position and the count are then what one read of every session gives.
 */
import { describe, expect, it } from 'vitest';
import type { Shard } from '../../src/store/index.js';
import type { Action } from '../../src/ui/core/actions.js';
import { view } from '../../src/ui/core/view.js';
import { openShard } from '../support/shard.js';
import { driveRuntime } from '../support/ui-runtime.js';

function manySessions(s: Shard, n: number): void {
  s.write(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      s.createSession({ label: `s${String(i).padStart(3, '0')}`, created_at: at });
    }
  });
}

const title = (h: ReturnType<typeof driveRuntime>) => view(h.state).lines()[0];

describe('the first read of the sessions', () => {
  it('is the screen rows of the newest ones with the total, then the whole list before the first key', () => {
    const s = openShard();
    manySessions(s, 120);
    const seen: Action[] = [];
    const h = driveRuntime(s, {}, [{ type: 'loadSessions' }], (a) => seen.push(a));
    const first = seen.filter((a) => a.type === 'sessions');
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ total: 120 });
    // 30 rows in the harness's state: no more sessions read than that.
    expect(h.state.sessions.map((x) => x.label)).toEqual(
      s
        .sessionSummaries()
        .slice(0, 30)
        .map((x) => x.label),
    );
    expect(h.state.sessionsMore).toBe(90);
    expect(title(h)).toMatch(/^┌ sessions 120 ─/);
    const before = {
      sel: h.state.sel,
      top: h.state.top,
      selKey: h.state.selKey,
      rows: view(h.state).lines(),
    };

    h.rt.completeSessions();
    expect(h.state.sessions.map((x) => x.sid)).toEqual(s.sessionSummaries().map((x) => x.sid));
    expect(h.state.sessionsMore).toBe(0);
    // What is on screen did not change.
    expect({
      sel: h.state.sel,
      top: h.state.top,
      selKey: h.state.selKey,
      rows: view(h.state).lines(),
    }).toEqual(before);
    // Read once: a second call reads nothing.
    const n = seen.length;
    h.rt.completeSessions();
    expect(seen.length).toBe(n);
    h.rt.close();
  });

  it('is whole at once when every session fits, and a key never sees a partial list', () => {
    const small = openShard();
    manySessions(small, 12);
    const seen: Action[] = [];
    const h1 = driveRuntime(small, {}, [{ type: 'loadSessions' }], (a) => seen.push(a));
    expect(seen.find((a) => a.type === 'sessions')).not.toHaveProperty('total');
    expect(h1.state.sessions).toHaveLength(12);
    expect(h1.state.sessionsMore).toBe(0);
    h1.rt.close();

    const big = openShard();
    manySessions(big, 100);
    const h2 = driveRuntime(big);
    expect(h2.state.sessions).toHaveLength(30);
    h2.key('end');
    expect(h2.state.sessions).toHaveLength(100);
    expect(h2.state.selKey).toBe(`s:${big.sessionSummaries()[99].sid}`);
    expect(h2.state.sessions[h2.state.list[h2.state.sel].session].label).toBe('s000');
    h2.rt.close();
  });
});
