import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * `show` takes a turn's Bates id. Anything else that names no session was answered "no session 'x'", which reads
 * as if a session had been asked for (`show abc`, or a Bates id short of a digit: `show k3m9x2qa-00001`); `path`
 * already said "'x' is not a Bates id".
 */
describe('show with an id that is not a Bates id', () => {
  it('says what a Bates id is, one line, exit 2; a session and an unknown turn keep their own lines', () => {
    const db = tempDb();
    const s = Shard.open(db);
    s.createSession({ sid: 'ssss', label: 'mylabel' });
    s.addTurn({ session: 'ssss', question: 'q', answer_text: 'a' });
    s.close();
    for (const id of ['nonexistent', 'ssss-00001']) {
      const r = cli(['show', id, '--db', db]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`arborist: '${id}' is not a Bates id (<sid>-<6 digits>)\n`);
    }
    const session = cli(['show', 'mylabel', '--db', db]);
    expect(session.code).toBe(2);
    expect(session.stderr).toBe("arborist: 'mylabel' is a session; show takes a turn's Bates id\n");
    const none = cli(['show', 'ssss-000009', '--db', db]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('arborist: no turn ssss-000009\n');
    expect(cli(['show', 'ssss-000001', '--db', db]).code).toBe(0);
  });

  it("tree, branches and find --scope given a turn's Bates id say which session it is in", () => {
    const db = tempDb();
    const s = Shard.open(db);
    s.createSession({ sid: 'ssss' });
    s.addTurn({ session: 'ssss', question: 'q', answer_text: 'a' });
    s.close();
    for (const args of [
      ['tree', 'ssss-000001'],
      ['branches', 'ssss-000001'],
      ['find', 'q', '--scope', 'ssss-000001'],
    ]) {
      const r = cli([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(
        "arborist: 'ssss-000001' is a turn's Bates id, not a session: its session is ssss\n",
      );
    }
    // a Bates id of a session that is not there stays "no session"
    expect(cli(['tree', 'zzzz-000001', '--db', db]).stderr).toBe("arborist: no session 'zzzz-000001'\n");
  });
});
