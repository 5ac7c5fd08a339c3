/** The TUI's watcher of written transcripts (followTranscripts): appended turns come in; the loop stays small. */

import { getEventListeners } from 'node:events';
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { followTranscripts, planResume, writeResume } from '../../src/agent/index.js';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { batesOf, machine, rewoundSession } from './helpers.js';

describe('followTranscripts', () => {
  it('imports a turn appended to a written session under the turn resumed from; one abort listener at a time', async () => {
    const m = machine();
    rewoundSession(m.projects, tempDir('arb-work-'));
    expect(cli(['import', 'claude', '--db', m.db], { env: m.env }).code).toBe(0);
    const { u3 } = batesOf(m.db, ['u3']);
    const s = Shard.open(m.db);
    const ctl = new AbortController();
    try {
      const plan = planResume(s, u3, { env: m.env });
      writeResume(s, plan);
      const added: string[] = [];
      const loop = followTranscripts(s, [plan.file], ctl.signal, (u) => added.push(...u.added), {
        pollMs: 5,
        settleMs: 50,
      });
      await new Promise((r) => setTimeout(r, 150)); // ~30 polls
      // A listener left behind by each poll's sleep grew past Node's warning limit within two seconds of a follow.
      expect(getEventListeners(ctl.signal, 'abort').length).toBeLessThanOrEqual(1);
      const line = (o: object) => JSON.stringify({ sessionId: plan.session_id, cwd: plan.cwd, ...o });
      appendFileSync(
        plan.file,
        `${line({ parentUuid: 'a3', type: 'user', uuid: 'n1', timestamp: '2026-03-03T10:00:00.000Z', message: { role: 'user', content: 'and the docs?' } })}\n${line({ parentUuid: 'n1', type: 'assistant', uuid: 'n1a', timestamp: '2026-03-03T10:00:05.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Written.' }], stop_reason: 'end_turn' } })}\n`,
      );
      const t0 = Date.now();
      while (added.length === 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 10));
      expect(added).toHaveLength(1);
      expect(s.getNode(added[0])).toMatchObject({ parent_bates: u3, question: 'and the docs?' });
      ctl.abort();
      await loop;
      expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
    } finally {
      ctl.abort();
      s.close();
    }
  });
});
