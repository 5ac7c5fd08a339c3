import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * `arborist archive list` named each archived session by its label only: an imported session has none, so the
 * column was empty for every one of them and nothing said which to restore. It now gives the agent and the title,
 * as `arborist list` does.
 */
describe('archive list', () => {
  it("names each archived session's agent and title; show says when in the CLI's way", () => {
    const db = tempDb();
    const s = Shard.open(db);
    const sid = s.createSession({
      source: {
        source: 'claude',
        source_session: 'C1',
        info: { cwd: '/home/ana/shop', title: 'Cart expiry' },
      },
      created_at: '2026-01-01T10:00:00.000Z',
    }).sid;
    s.addTurn({ session: sid, question: 'q', answer_text: 'a', created_at: '2026-01-01T10:00:00.000Z' });
    s.close();
    expect(cli(['maintain', '--older-than', '30d', '--apply', '--db', db]).code).toBe(0);
    const r = cli(['archive', 'list', '--db', db]);
    expect(r.code).toBe(0);
    const [head, row] = r.stdout.split('\n');
    expect(head).toMatch(/^SID +AGENT +LABEL +TURNS +REASON/);
    expect(row).toMatch(new RegExp(`^${sid} +claude +Cart expiry +1 +retention `));
    // archive show gives the time as every command does (it printed the raw ISO string)
    expect(cli(['archive', 'show', sid, '--db', db]).stdout).toMatch(
      /\narchived +\d{4}-\d\d-\d\d \d\d:\d\d (UTC|[+-]\d\d:\d\d) \(retention\)\n/,
    );
  });
});
