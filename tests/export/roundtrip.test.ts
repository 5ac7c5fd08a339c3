import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../../src/store/testing.js';
import { cli } from '../support/cli.js';
import { openShard } from '../support/shard.js';
import { tempDir } from '../support/tmp.js';

const OC_HOME = fileURLToPath(new URL('../import/fixtures/openclaw/home', import.meta.url));

/** Every live turn's identity and hashes, and every session's root: what must survive the round trip. */
function fingerprint(db: string) {
  const s = openShard(db, { readonly: true });
  const rows = dbOf(s)
    .prepare(
      'SELECT n.bates, n.node_hash, h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id ORDER BY n.bates',
    )
    .raw(true)
    .all() as [string, Buffer, Buffer][];
  const turns = rows.map(([b, nh, sh]) => `${b} ${nh.toString('hex')} ${sh.toString('hex')}`);
  const roots = s
    .listSessions()
    .map((x) => `${x.sid} ${x.session_root} ${x.label ?? ''}`)
    .sort();
  const records = new Map<string, string>();
  for (const line of turns) {
    const b = line.split(' ')[0];
    const r = s.sourceRecords(b);
    if (r) records.set(b, r.toString('utf8'));
  }
  const order = s.listSessions().map((x) => x.sid);
  s.close();
  return { turns, roots, records, order };
}

describe('export --format json, then import arborist into another shard', () => {
  it('gives the same Bates ids, node and subtree hashes, session roots and source records; again adds nothing', () => {
    const dir = tempDir('arb-roundtrip-');
    const a = join(dir, 'a.db');
    const b = join(dir, 'b.db');
    expect(cli(['import', 'openclaw', OC_HOME, '--db', a]).code).toBe(1); // two sessions.json keys skipped
    // A typed turn forked from an imported one, in a session of its own (a cross-session child), labelled.
    const listed = cli(['list', '--db', a, '--json']).json() as { sid: string; n_nodes: number }[];
    const imported = listed.find((x) => x.n_nodes >= 3)!.sid;
    const s = openShard(a);
    const sess = s.createSession({ label: 'my fork' });
    s.addTurn({
      question: 'what about tests?',
      answer_text: 'add them',
      parent: `${imported}-000003`,
      session: sess.sid,
    });
    s.close();
    const before = fingerprint(a);
    expect(before.records.size).toBeGreaterThan(0);
    // Sessions in creation order: a session's cross-session parent is exported (and imported) before it.
    for (const sid of before.order) {
      const file = join(dir, `${sid}.json`);
      const e = cli(['export', sid, '--format', 'json', '--out', file, '--db', a]);
      expect(e.code, e.stderr).toBe(0);
      const r = cli(['import', 'arborist', file, '--db', b, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    const after = fingerprint(b);
    expect(after.turns).toEqual(before.turns);
    expect(after.roots).toEqual(before.roots);
    expect(after.records).toEqual(before.records);
    expect(cli(['verify', '--db', b]).code).toBe(0);
    expect(cli(['chain-check', '--db', b]).code).toBe(0);
    // and the source records come back out byte for byte in the other shard
    const src = cli(['export', imported, '--format', 'source', '--db', b]);
    expect(src.code).toBe(0);
    expect(src.stdout).toBe(
      before.order.includes(imported)
        ? [...before.records]
            .filter(([k]) => k.startsWith(`${imported}-`))
            .map(([, v]) => v)
            .join('')
        : '',
    );
    for (const sid of before.order) {
      const again = cli(['import', 'arborist', join(dir, `${sid}.json`), '--db', b, '--json']).json();
      expect(again.turns_added).toBe(0);
    }
    expect(fingerprint(b).turns).toEqual(before.turns);
  });

  it('a turn whose content was changed in the file is refused, not imported under its old id', () => {
    const dir = tempDir('arb-roundtrip-');
    const a = join(dir, 'a.db');
    const s = openShard(a);
    const t1 = s.addTurn({ question: 'first', answer_text: 'one' });
    s.addTurn({ question: 'second', answer_text: 'two', parent: t1.bates });
    s.close();
    const file = join(dir, 'x.json');
    cli(['export', t1.sid, '--format', 'json', '--out', file, '--db', a]);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    doc.turns[1].answer_text = 'forged';
    writeFileSync(file, JSON.stringify(doc));
    const r = cli(['import', 'arborist', file, '--db', join(dir, 'b.db'), '--json']);
    expect(r.code).toBe(1);
    const sum = r.json();
    expect(sum.turns_added).toBe(1);
    expect(sum.problems.map((p: { reason: string }) => p.reason).join('\n')).toMatch(
      /node_hash does not match/,
    );
  });
});
