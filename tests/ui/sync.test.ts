import { describe, expect, it } from 'vitest';
import { SYNC_NOT_SET_UP, syncText } from '../../src/ui/features/sync/model.js';
import { notSetUp, reportOf } from '../../src/ui/runtime/sync.js';
import { Driver } from './fixtures.js';

describe('S: sync in the background', () => {
  it('starts one sync, shows its progress in the status bar, and says what moved when it ends', () => {
    const d = new Driver();
    expect(d.key('S')).toEqual([{ type: 'sync' }]);
    expect(d.state.busy).toBe('sync: starting…');
    // A second S while it runs starts nothing.
    expect(d.key('S')).toEqual([]);
    expect(d.state.message?.text).toBe('a sync is already running');
    d.send({ type: 'syncProgress', progress: { phase: 'import', done: 1200, total: 4000 } });
    expect(d.state.busy).toBe('sync: importing 1,200/4,000 30%…');
    const fx = d.send({
      type: 'syncDone',
      summary: 'pulled 40 turns from 2 hosts',
      error: null,
      changed: true,
    });
    expect(d.state.sync).toBeNull();
    expect(d.state.busy).toBeNull();
    expect(d.state.message?.text).toBe('pulled 40 turns from 2 hosts');
    // Turns arrived: what is shown is read again.
    expect(fx.some((e) => e.type === 'loadSessions')).toBe(true);
  });

  it('says a failure as an error, and a sync can start again', () => {
    const d = new Driver();
    d.key('S');
    const fx = d.send({
      type: 'syncDone',
      summary: '',
      error: 'no remote: arborist sync remote add NAME URL',
      changed: false,
    });
    expect(fx).toEqual([]);
    expect(d.state.message).toMatchObject({
      level: 'error',
      text: 'sync failed: no remote: arborist sync remote add NAME URL',
    });
    expect(d.key('S')).toEqual([{ type: 'sync' }]);
  });

  it('says a shard with no sync remote as information (sync is not set up), not as a failure', () => {
    const d = new Driver();
    d.key('S');
    const fx = d.send({ type: 'syncDone', summary: '', error: null, changed: false, notSetUp: true });
    expect(fx).toEqual([]);
    expect(d.state.sync).toBeNull();
    expect(d.state.busy).toBeNull();
    expect(d.state.message).toMatchObject({ level: 'info', text: SYNC_NOT_SET_UP });
    expect(SYNC_NOT_SET_UP).toContain('arborist sync remote add NAME URL');
    // Only sync's not_found error is "not set up": another error, or a report, is not.
    expect(notSetUp('{"error":"no sync remote yet: add one","kind":"not_found"}\n')).toBe(true);
    expect(notSetUp('{"error":"git was not found","kind":"input"}\n')).toBe(false);
    expect(notSetUp('{"ok":false,"summary":"","remotes":[],"failed":[]}')).toBe(false);
    expect(notSetUp('not json')).toBe(false);
    expect(d.key('S')).toEqual([{ type: 'sync' }]);
  });

  it('a progress line from nowhere (no sync running) changes nothing; an unknown phase is shown cleaned', () => {
    const d = new Driver();
    const before = d.state;
    d.send({ type: 'syncProgress', progress: { phase: 'push', done: 1, total: 2 } });
    expect(d.state).toBe(before);
    expect(syncText({ progress: { phase: 'Weird\u001b[31m', done: 5, total: 0 } })).toBe('sync: weirdm…');
    expect(syncText({ progress: { phase: 'push', done: 9, total: 4 } })).toBe('sync: pushing 4/4 100%…');
  });

  it("tells a host refused from one whose sessions were held back, from sync's report", () => {
    const host = (h: string, status: string) => ({ host: h, status, held_back: [], turns: 0, problems: [] });
    const doc = (...hosts: object[]) =>
      JSON.stringify({
        ok: false,
        summary: 'r: pushed 0 turns, pulled 3 turns from 1 host',
        remotes: [{ pulled: { turns: 3, hosts } }],
      });
    expect(reportOf(doc(host('aaa', 'refused'), host('bbb', 'partial'), host('ccc', 'ok')))).toEqual({
      summary: 'r: pushed 0 turns, pulled 3 turns from 1 host',
      refused: 'refused host aaa; held back sessions of host bbb',
      changed: true,
    });
    expect(reportOf(doc(host('ccc', 'ok'), host('ddd', 'unchanged')))?.refused).toBe('');
    expect(reportOf('not json')).toBeNull();
  });
});
