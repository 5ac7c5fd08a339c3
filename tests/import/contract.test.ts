import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { type ContractFormat, type ContractTurn, FORMATS } from './contract/formats.js';

/**
 * The contract every reader keeps (docs/import.md, "The readers' contract"), run on each source in
 * contract/formats.ts: what one reader guarantees, all do.
 */

const HOSTILE =
  'title\x1b]0;pwned\x07 clip\x1b]52;c;cHduZWQ=\x07 clear\x1b[2J csi\u009b31m bidi\u202etxt.exe nul\u0000end';
const TURNS: ContractTurn[] = [
  { question: 'How do I list the open ports?', answer: 'Use `ss -ltnp`; it shows the process too.' },
  { question: HOSTILE, answer: `An answer that quotes it: ${HOSTILE}` },
  { question: 'And only the IPv6 ones?', answer: 'Add -6: `ss -ltnp6`.' },
];

interface Written {
  dir: string;
  db: string;
  path: string;
  file: string;
}

function setUp(f: ContractFormat, turns: readonly ContractTurn[] = TURNS): Written {
  const dir = tempDir(`arb-contract-${f.kind}-`);
  const { path, file } = f.write(join(dir, 'home'), turns);
  return { dir, db: join(dir, 'sessions.db'), path, file };
}

function importJson(w: Written, f: ContractFormat, path = w.path) {
  const r = cli(['import', f.kind, path, '--db', w.db, '--json']);
  expect(r.stderr, r.stderr).not.toMatch(/this is a bug/);
  return { code: r.code, doc: r.json() };
}

/** Every file below a folder with its bytes and mtime, to tell whether an import wrote to the source. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(p, `${statSync(p).mtimeMs}:${readFileSync(p).toString('base64')}`);
    }
  };
  walk(dir);
  return out;
}

function sessionsOf(db: string): { sid: string; n_nodes: number }[] {
  return cli(['list', '--db', db, '--json']).json();
}

function turnsOf(db: string, sid: string): { bates: string; question: string; answer_text: string }[] {
  const tree = cli(['tree', sid, '--db', db, '--json']).json();
  return tree.map((t: { bates: string }) => cli(['show', t.bates, '--db', db, '--json']).json());
}

for (const f of FORMATS) {
  describe(`the reader contract: ${f.kind}`, () => {
    it('imports every turn without a problem, adds nothing the second time, and never writes to the source', () => {
      const w = setUp(f);
      const before = snapshot(join(w.dir, 'home'));
      const first = importJson(w, f);
      expect(first.doc.problems).toEqual([]);
      expect(first.code).toBe(0);
      expect(first.doc.turns_added).toBe(TURNS.length);
      const again = importJson(w, f);
      expect(again.doc).toMatchObject({ turns_added: 0, turns_skipped: TURNS.length, problems: [] });
      expect(snapshot(join(w.dir, 'home'))).toEqual(before);
      const [s] = sessionsOf(w.db);
      expect(turnsOf(w.db, s.sid).map((t) => t.question)).toEqual(TURNS.map((t) => t.question));
    });

    it('keeps hostile text exactly and never prints it raw', () => {
      const w = setUp(f);
      importJson(w, f);
      const [s] = sessionsOf(w.db);
      const hostile = turnsOf(w.db, s.sid).find((t) => t.question === HOSTILE);
      expect(hostile?.answer_text).toContain(HOSTILE);
      for (const args of [
        ['show', hostile!.bates],
        ['tree', s.sid],
        ['find', 'pwned'],
        ['path', hostile!.bates],
      ]) {
        const r = cli([...args, '--db', w.db]);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stdout, args.join(' ')).not.toMatch(
          /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/,
        );
      }
    });

    it('a 10 MB answer is stored whole', () => {
      const big = `start ${'0123456789abcdef'.repeat(10 * 65536)} end`;
      const w = setUp(f, [{ question: 'dump the log', answer: big }]);
      const r = importJson(w, f);
      expect(r.doc).toMatchObject({ turns_added: 1, problems: [] });
      const [s] = sessionsOf(w.db);
      expect(turnsOf(w.db, s.sid)[0].answer_text).toContain(big);
    });

    it.runIf(f.appendCut)(
      'a cut last line waits: reported, not imported, and imported once it is whole',
      () => {
        const w = setUp(f);
        importJson(w, f);
        const finish = f.appendCut!(w.file, { question: 'One more?', answer: 'Yes.' });
        const cut = importJson(w, f);
        expect(cut.doc.turns_added).toBe(0);
        expect(cut.doc.problems).toHaveLength(1);
        expect(cut.doc.problems[0].reason).toMatch(/truncated last line/);
        finish();
        const whole = importJson(w, f);
        expect(whole.doc).toMatchObject({ turns_added: 1, problems: [] });
      },
    );

    it.runIf(f.breakLine)('a broken line is one problem `file:line`, and every turn is imported', () => {
      const w = setUp(f);
      const n = f.breakLine!(w.file);
      const r = importJson(w, f);
      expect(r.code).toBe(1);
      const problems: { file: string; line: number }[] = r.doc.problems;
      const said = JSON.stringify(problems);
      expect(
        problems.filter((p) => p.line === n && p.file === w.file),
        said,
      ).toHaveLength(1);
      // At most one consequence, said on the line it concerns (the next prompt lost the record it follows).
      expect(problems.length, said).toBeLessThanOrEqual(2);
      expect(problems.every((p) => p.line >= n)).toBe(true);
      expect(r.doc.turns_added).toBe(TURNS.length);
    });

    it('a file of another format given by name is one problem, not one a line', () => {
      const w = setUp(f);
      const other = join(w.dir, 'metrics.jsonl');
      writeFileSync(
        other,
        Array.from({ length: 40 }, (_, i) => `${JSON.stringify({ metric: 'cpu', n: i })}\n`).join(''),
      );
      const r = importJson(w, f, other);
      expect(r.code).toBe(1);
      expect(r.doc.turns_added).toBe(0);
      expect(r.doc.problems, JSON.stringify(r.doc.problems.slice(0, 3))).toHaveLength(1);
    });

    it.runIf(f.sourceRoundTrip)('`export --format source` gives back every record byte for byte', () => {
      const w = setUp(f);
      importJson(w, f);
      const [s] = sessionsOf(w.db);
      const out = join(w.dir, 'back.jsonl');
      const r = cli(['export', s.sid, '--format', 'source', '--out', out, '--db', w.db]);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(w.file, 'utf8'));
    });
  });
}
