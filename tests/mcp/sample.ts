import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';

/** The small shard the MCP tests serve, and the hostile text in it. */

export const ESC = '\x1b';
/** Stored text that must never reach a client raw: a colour, a title change, an 8-bit CSI, a bidi override. */
export const HOSTILE = `${ESC}[31mred${ESC}[0m ${ESC}]0;pwned\x07 \x9b2J \u202eevil`;

/** A claude session in project "shop" (a fork of it too), a codex one, one asked here. */
export function shard(): string {
  const db = tempDb();
  const s = Shard.open(db);
  s.createSession({
    sid: 'cccc',
    source: {
      source: 'claude',
      source_session: 'C1',
      info: { cwd: '/home/ana/shop', project: 'shop', title: 'Cart expiry' },
    },
  });
  s.createSession({
    sid: 'xxxx',
    source: { source: 'codex', source_session: 'X1', info: { cwd: '/home/ana/garden' } },
  });
  s.createSession({ sid: 'aaaa', label: 'here' });
  const add = (session: string, day: string, question: string, answer: string, parent?: string) =>
    s.addTurn({ session, parent, question, answer_text: answer, created_at: `${day}T12:00:00.000Z` });
  add('cccc', '2026-10-15', 'lifetime of a cart', 'carts expire after a day');
  add(
    'cccc',
    '2026-10-16',
    'and the wal checkpoint?',
    'we decided to checkpoint the WAL when idle',
    'cccc-000001',
  );
  add('xxxx', '2026-11-02', 'codex question', 'the lifetime is bound by the borrow; see NEAR( and "a');
  add('aaaa', '2026-11-20', `lifetime in arborist ${HOSTILE}`, `asked here ${HOSTILE}`);
  s.close();
  return db;
}
