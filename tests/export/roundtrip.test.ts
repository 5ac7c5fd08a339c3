import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hashes } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { cli } from '../support/cli.js';
import { openShard } from '../support/shard.js';
import { tempDir } from '../support/tmp.js';
import { buildFixture } from './fixture.js';

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
    // Each session shows where it came from as it did there: OpenClaw's with their agent, project and title, the
    // one asked in arborist with none.
    const shown = (db: string) =>
      (cli(['list', '--db', db, '--json']).json() as Record<string, unknown>[])
        .map(({ sid, agent, project, label, title }) => ({ sid, agent, project, label, title }))
        .sort((x, y) => String(x.sid).localeCompare(String(y.sid)));
    expect(shown(b)).toEqual(shown(a));
    expect(shown(b).map((x) => x.agent)).toContain('openclaw');
    expect(shown(b).find((x) => x.label === 'my fork')?.agent).toBe('arborist'); // asked here: no agent of its own
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

  it('a session’s origin that is not what an export writes is left out with a problem; its turns still import', () => {
    const dir = tempDir('arb-roundtrip-');
    const a = join(dir, 'a.db');
    expect(cli(['import', 'openclaw', OC_HOME, '--db', a]).code).toBe(1);
    const sid = (cli(['list', '--db', a, '--json']).json() as { sid: string; n_nodes: number }[]).find(
      (x) => x.n_nodes >= 3,
    )!.sid;
    const file = join(dir, 'e.json');
    expect(cli(['export', sid, '--format', 'json', '--out', file, '--db', a]).code).toBe(0);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.sessions[0].origin).toMatchObject({ agent: 'openclaw' });
    for (const [origin, why] of [
      ['claude', /origin: must be an object, not text/],
      [{ agent: 'claude; rm -rf ~' }, /origin: its agent must be a source kind/],
      [{ agent: 'claude', cwd: 'x'.repeat(5000) }, /origin: its cwd must be text of at most 4096/],
      [{ agent: 'claude', title: 7 }, /origin: its title must be text/],
    ] as const) {
      doc.sessions[0].origin = origin;
      writeFileSync(file, JSON.stringify(doc));
      const b = join(dir, `b-${Math.random().toString(36).slice(2)}.db`);
      const r = cli(['import', 'arborist', file, '--db', b, '--json']);
      expect(
        r
          .json()
          .problems.map((p: { reason: string }) => p.reason)
          .join('\n'),
      ).toMatch(why);
      expect(r.json().turns_added).toBe(doc.turns.filter((t: { sid: string }) => t.sid === sid).length);
      const listed = cli(['list', '--db', b, '--json']).json()[0];
      expect([listed.sid, listed.agent, listed.project]).toEqual([sid, 'arborist', null]);
      expect(cli(['verify', '--db', b]).code).toBe(0);
    }
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

  // biome-ignore lint/suspicious/noExplicitAny: the export document, edited as a forger would
  type Doc = any;
  /** An answer edited and its node hash recomputed with the store's own hash: only the hashes above it can tell. */
  function forge(doc: Doc, bates: string): void {
    const t = doc.turns.find((x: Doc) => x.bates === bates);
    t.answer_text = 'a forged answer';
    t.node_hash = hashes.nodeHash({ ...t }).toString('hex');
  }
  const H = (hex: string) => Buffer.from(hex, 'hex');
  /** A turn's subtree hash recomputed from the document and its outside children, as a thorough forger would. */
  function rehashSubtree(doc: Doc, bates: string): void {
    const t = doc.turns.find((x: Doc) => x.bates === bates);
    const kids = [
      ...doc.turns.filter((x: Doc) => x.parent_bates === bates),
      ...(doc.outside_children ?? []).filter((x: Doc) => x.parent_bates === bates),
    ].sort((a: Doc, b: Doc) => (a.bates < b.bates ? -1 : 1));
    t.subtree_hash = hashes
      .subtreeHash(
        H(t.node_hash),
        kids.map((k: Doc) => H(k.subtree_hash)),
      )
      .toString('hex');
  }
  function importDoc(doc: Doc) {
    const dir = tempDir('arb-forged-');
    const file = join(dir, 'forged.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const db = join(dir, 'b.db');
    const r = cli(['import', 'arborist', file, '--db', db, '--json']);
    const tree = cli(['tree', 'aaaa', '--db', db, '--json']);
    const bates = tree.code === 0 ? (tree.json() as { bates: string }[]).map((t) => t.bates) : [];
    return { r, db, bates, reasons: r.json().problems.map((p: { reason: string }) => p.reason) as string[] };
  }

  it('a forged answer whose node hash was recomputed is refused by the subtree hash the shard attested', () => {
    const dir = tempDir('arb-forged-');
    const fx = buildFixture(join(dir, 'a.db'));
    const file = join(dir, 'aaaa.json');
    expect(cli(['export', 'aaaa', '--format', 'json', '--out', file, '--db', fx.db]).code).toBe(0);
    const clean = (): Doc => JSON.parse(readFileSync(file, 'utf8'));
    // a2 has a child in bbbb, which a session export of aaaa leaves out: the document names it beside the turns
    expect(clean().outside_children).toEqual([
      { bates: fx.ids.b1, parent_bates: fx.ids.a2, subtree_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);

    // The clean export imports whole, with no problem.
    const ok = importDoc(clean());
    expect([ok.r.code, ok.reasons]).toEqual([0, []]);
    expect(ok.bates).toEqual([fx.ids.a1, fx.ids.a2, fx.ids.a4, fx.ids.a3]);

    // A leaf, and a turn with a child inside the document and one outside it.
    for (const target of [fx.ids.a4, fx.ids.a2]) {
      const doc = clean();
      forge(doc, target);
      const at = doc.turns.findIndex((t: Doc) => t.bates === target);
      const got = importDoc(doc);
      expect(got.r.code, target).toBe(1);
      expect(got.reasons[0], target).toBe(
        `$.turns[${at}] (${target}): subtree_hash does not match its node_hash and its children's subtree hashes (edited after export, or damaged); skipped`,
      );
      // the forged turn is not there; the turns the forgery does not touch are, under their own ids
      expect(got.bates, target).not.toContain(target);
      expect(got.bates, target).toEqual(expect.arrayContaining([fx.ids.a1, fx.ids.a3]));
      expect(cli(['find', 'forged', '--db', got.db, '--json']).json(), target).toEqual([]);
      expect(cli(['verify', '--db', got.db]).code, target).toBe(0);
    }

    // A thorough forger recomputes the subtree hashes up to the top turn too: the session root still tells.
    const doc = clean();
    forge(doc, fx.ids.a4);
    for (const b of [fx.ids.a4, fx.ids.a2, fx.ids.a1]) rehashSubtree(doc, b);
    const got = importDoc(doc);
    expect(got.r.code).toBe(1);
    expect(got.reasons).toEqual([
      `$.sessions (aaaa): session_root does not match the subtree hashes of its top turns (${fx.ids.a1}) (edited after export, or damaged); its 4 turns skipped`,
    ]);
    expect(got.r.json()).toMatchObject({ turns_added: 0, turns_skipped: 0, sessions: 0 });
  });

  /** Where the forged answer landed: each turn holding it, with its source (null: presented as the shard's own). */
  function forgedTurns(db: string): [string, string | null][] {
    const s = openShard(db, { readonly: true });
    return dbOf(s)
      .prepare("SELECT bates, source FROM nodes WHERE answer_text = 'a forged answer' ORDER BY bates")
      .raw(true)
      .all() as [string, string | null][];
  }

  it('a junk turn naming a parent cannot leave that parent unchecked: a forged leaf under it is never exact', () => {
    const dir = tempDir('arb-forged-');
    const fx = buildFixture(join(dir, 'a.db'));
    for (const [what, args] of [
      ['session', ['aaaa']],
      ['path', [fx.ids.a4]],
    ] as const) {
      const file = join(dir, `${what}.json`);
      expect(cli(['export', ...args, '--format', 'json', '--out', file, '--db', fx.db]).code).toBe(0);
      const doc: Doc = JSON.parse(readFileSync(file, 'utf8'));
      // The leaf a4 forged with its node and subtree hashes made consistent; a2's stale subtree hash would tell,
      // so a junk turn names a2 as its parent, too malformed (no sid, seq or hashes) to take a place under it.
      forge(doc, fx.ids.a4);
      rehashSubtree(doc, fx.ids.a4);
      doc.turns.push({ bates: 'aaaa-000099', parent_bates: fx.ids.a2 });
      const at = doc.turns.findIndex((t: Doc) => t.bates === fx.ids.a2);
      const got = importDoc(doc);
      expect(got.r.code, what).toBe(1);
      expect(got.reasons, what).toContain(
        `$.turns[${at}] (${fx.ids.a2}): a child too malformed to check leaves this subtree_hash unattested; skipped`,
      );
      // a2 is not imported, and the forged leaf only anew: a turn of its own source, never under its old id
      expect(got.bates, what).not.toContain(fx.ids.a2);
      expect(got.bates, what).not.toContain(fx.ids.a4);
      expect(forgedTurns(got.db), what).toEqual([[expect.not.stringMatching(/^aaaa-/), 'arborist']]);
      expect(cli(['verify', '--db', got.db]).code, what).toBe(0);
    }
  });

  it('a session export whose root cannot be told (a turn too malformed to place) refuses its turns', () => {
    const dir = tempDir('arb-forged-');
    const fx = buildFixture(join(dir, 'a.db'));
    const file = join(dir, 'aaaa.json');
    expect(cli(['export', 'aaaa', '--format', 'json', '--out', file, '--db', fx.db]).code).toBe(0);
    const doc: Doc = JSON.parse(readFileSync(file, 'utf8'));
    // A thorough forger recomputes every subtree hash up to the top turn; only the root could tell, so a junk
    // turn of the session with no parent, seq or hashes tries to make the root impossible to recompute.
    forge(doc, fx.ids.a4);
    for (const b of [fx.ids.a4, fx.ids.a2, fx.ids.a1]) rehashSubtree(doc, b);
    doc.turns.push({ bates: 'aaaa-000099', sid: 'aaaa' });
    const got = importDoc(doc);
    expect(got.r.code).toBe(1);
    expect(got.reasons).toContain(
      '$.sessions (aaaa): session_root cannot be recomputed (a turn of the session too malformed to place), so nothing attests its turns; its 4 turns skipped',
    );
    expect(got.r.json()).toMatchObject({ turns_added: 0 });
    expect(forgedTurns(got.db)).toEqual([]);
  });

  it('an export without outside_children (but a subtree export) cannot be checked: said once, all imported anew', () => {
    const dir = tempDir('arb-forged-');
    const fx = buildFixture(join(dir, 'a.db'));
    for (const [what, args] of [
      ['session', ['aaaa']],
      ['path', [fx.ids.a4]],
      ['subtree', [fx.ids.a1, '--subtree']],
    ] as const) {
      const file = join(dir, `${what}.json`);
      expect(cli(['export', ...args, '--format', 'json', '--out', file, '--db', fx.db]).code).toBe(0);
      const clean: Doc = JSON.parse(readFileSync(file, 'utf8'));
      // A fresh export of every kind holds the list, and imports exactly: the same ids, no problem.
      expect(clean.outside_children, what).toBeDefined();
      const ok = importDoc(clean);
      expect([ok.r.code, ok.reasons], what).toEqual([0, []]);
      expect(ok.bates, what).toContain(fx.ids.a4);
      expect(forgedTurns(ok.db), what).toEqual([]);
      if (what === 'subtree') continue; // without the list it is still checked (reader.test.ts)

      // The list removed, and the leaf forged consistently below it: nothing above a4 can be checked now.
      const doc: Doc = JSON.parse(readFileSync(file, 'utf8'));
      delete doc.outside_children;
      forge(doc, fx.ids.a4);
      rehashSubtree(doc, fx.ids.a4);
      const got = importDoc(doc);
      expect(got.reasons, what).toEqual([
        '$.outside_children: missing: subtree hashes not checked (an export from before it was written, or a list removed); turns imported anew, not as exact',
      ]);
      expect(got.r.code, what).toBe(1);
      expect(got.r.json().turns_added, what).toBe(doc.turns.length);
      // Nothing under the exporting shard's ids: every turn in a session of its own source, the forged one too.
      expect(got.bates, what).toEqual([]);
      expect(forgedTurns(got.db), what).toEqual([[expect.not.stringMatching(/^aaaa-/), 'arborist']]);
      expect(cli(['verify', '--db', got.db]).code, what).toBe(0);
    }
  });

  it('a skipped turn takes exactness from everything below it: all imported anew, in a session of their own', () => {
    const dir = tempDir('arb-forged-');
    const fx = buildFixture(join(dir, 'a.db'));
    const file = join(dir, 'a1.json');
    expect(
      cli(['export', fx.ids.a1, '--subtree', '--format', 'json', '--out', file, '--db', fx.db]).code,
    ).toBe(0);
    const doc: Doc = JSON.parse(readFileSync(file, 'utf8'));
    // The top turn edited: every other turn hangs below it, and each one's node hash covers its parent's Bates id,
    // which a turn imported anew no longer has. Before, b2 (exact under a turn imported anew) failed the whole file.
    doc.turns[0].answer_text = 'a forged answer';
    const got = importDoc(doc);
    expect(got.reasons).toEqual([
      `$.turns[0] (${fx.ids.a1}): node_hash does not match the content (edited after export, or damaged); skipped`,
      `$.turns[1] (${fx.ids.a2}): its parent ${fx.ids.a1} was skipped; imported anew as a root (with the 3 turns under it)`,
      `$.turns[5] (${fx.ids.a3}): its parent ${fx.ids.a1} was skipped; imported anew as a root`,
    ]);
    expect(got.r.json()).toMatchObject({ turns_added: 5, turns_refused: 0 });
    // None under an id of the exporting shard: new sessions, mapped to the sessions they came from.
    const sessions = cli(['list', '--db', got.db, '--json']).json() as { sid: string; n_nodes: number }[];
    expect(sessions.map((x) => x.sid)).not.toContain('aaaa');
    expect(sessions.map((x) => x.sid)).not.toContain('bbbb');
    expect(sessions.reduce((n, x) => n + x.n_nodes, 0)).toBe(5);
    expect(cli(['verify', '--db', got.db]).code).toBe(0);
    // and again: nothing new
    const file2 = join(dir, 'again.json');
    writeFileSync(file2, JSON.stringify(doc));
    const again = cli(['import', 'arborist', file2, '--db', got.db, '--json']);
    expect(again.json()).toMatchObject({ turns_added: 0, turns_skipped: 5 });
  });

  it('a subtree whose top hangs under a turn this shard never had is refused, counted, and leaves no session', () => {
    const dir = tempDir('arb-orphan-');
    const fx = buildFixture(join(dir, 'a.db'));
    // b1 (session bbbb) hangs under a2 (session aaaa); its subtree is b1 and b2.
    const file = join(dir, 'b1.json');
    expect(
      cli(['export', fx.ids.b1, '--subtree', '--format', 'json', '--out', file, '--db', fx.db]).code,
    ).toBe(0);
    const db = join(dir, 'empty.db');
    const r = cli(['import', 'arborist', file, '--db', db, '--json']);
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({
      turns_added: 0,
      turns_skipped: 0,
      turns_refused: 2,
      sessions: 0,
      errors: 1,
    });
    expect(r.json().problems.map((p: { line: number; reason: string }) => [p.line, p.reason])).toEqual([
      [
        1,
        `its parent ${fx.ids.a2} is in neither the file nor this shard, and its node hash covers that parent: skipped with the 1 turn under it; import ${fx.ids.a2} first`,
      ],
    ]);
    expect(cli(['list', '--db', db, '--json']).json()).toEqual([]);
    const human = cli(['import', 'arborist', file, '--db', db]);
    expect(human.stdout).toBe('imported 0 turns, 0 already there, 0 new sessions, 1 file, 2 refused\n');
    expect(cli(['verify', '--db', db]).code).toBe(0);

    // Once the parent is here, the same file imports exactly: the same ids and hashes.
    const parent = join(dir, 'a2.json');
    expect(cli(['export', fx.ids.a2, '--format', 'json', '--out', parent, '--db', fx.db]).code).toBe(0);
    expect(cli(['import', 'arborist', parent, '--db', db]).code).toBe(0);
    const again = cli(['import', 'arborist', file, '--db', db, '--json']);
    expect([again.code, again.json().turns_added, again.json().turns_refused]).toEqual([0, 2, 0]);
    for (const b of [fx.ids.b1, fx.ids.b2])
      expect(cli(['show', b, '--db', db, '--json']).json().node_hash).toBe(
        cli(['show', b, '--db', fx.db, '--json']).json().node_hash,
      );
  });
});
