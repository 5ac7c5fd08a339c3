import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const CORPUS = fileURLToPath(new URL('./fixtures/corpus/', import.meta.url));
const FIX = fileURLToPath(new URL('./fixtures/claude/', import.meta.url));

function clean(db: string): void {
  const v = cli(['verify', '--db', db, '--json']);
  expect(v.json().ok, v.stdout).toBe(true);
  expect(cli(['chain-check', '--db', db]).code).toBe(0);
}

const sids = (db: string) => cli(['list', '--db', db, '--json']).json() as { sid: string; n_nodes: number }[];
const tree = (db: string, sid: string) =>
  cli(['tree', sid, '--db', db, '--json']).json() as {
    bates: string;
    parent_bates: string | null;
    question: string;
    depth: number;
  }[];

describe('arborist import claude (the real binary, the shared corpus)', () => {
  it("imports claude-code-log's transcripts, reports every bad line, verifies clean, and a second run adds nothing", () => {
    const db = join(tempDir('arb-claude-'), 'sessions.db');
    const r = cli(['import', 'claude', join(CORPUS, 'claude-code'), '--db', db, '--json']);
    expect(r.code).toBe(1);
    const s = r.json();
    expect(s.files).toBe(5);
    expect(s.turns_added).toBeGreaterThan(10);
    // edge_cases.jsonl's hostile lines, each named by its line (tests/import/claude.test.ts says why each is bad)
    const lines = s.problems
      .filter((p: { file: string }) => p.file.endsWith('edge_cases.jsonl'))
      .map((p: { line: number }) => p.line);
    expect(lines).toEqual([10, 11, 13, 14, 15, 16, 17, 18]);
    clean(db);
    const again = cli(['import', 'claude', join(CORPUS, 'claude-code'), '--db', db, '--json']).json();
    expect([again.turns_added, again.turns_skipped, again.sessions]).toEqual([0, s.turns_added, 0]);
    clean(db);
  });

  it('a rewind is a branch point, a compaction a checkpoint on the claude:<session> entry, the summary no question', () => {
    const db = join(tempDir('arb-claude-'), 'sessions.db');
    cli(['import', 'claude', join(CORPUS, 'claude-code/dag_compact_after_rewind.jsonl'), '--db', db]);
    const [only] = sids(db);
    const t = tree(db, only.sid);
    const questions = t.map((x) => x.question);
    expect(questions).not.toContainEqual(expect.stringMatching(/continued from a previous conversation/i));
    const branches = cli(['branches', only.sid, '--db', db, '--json']).json();
    expect(branches.length).toBe(1);
    expect(branches[0].n_children).toBe(2);
    const entries = cli(['entry', 'list', '--db', db, '--json']).json();
    expect(entries.length).toBe(1);
    expect(entries[0].key).toMatch(/^claude:/);
    expect(entries[0].compaction_checkpoints.length).toBe(1);
    clean(db);
  });

  it('a resumed session hangs its new turns under the replayed turn of the first: a cross-session parent', () => {
    const db = join(tempDir('arb-claude-'), 'sessions.db');
    const r = cli(['import', 'claude', join(FIX, 'resume'), '--db', db, '--json']).json();
    expect([r.sessions, r.turns_added]).toEqual([2, 3]);
    const all = sids(db);
    const resumed = all.find((x) => x.n_nodes === 1)!;
    const [turn] = tree(db, resumed.sid);
    const shown = cli(['show', turn.bates, '--db', db, '--json']).json();
    expect(shown.parent_bates).toMatch(new RegExp(`^${all.find((x) => x.n_nodes === 2)!.sid}-`));
    clean(db);
  });

  it('--no-sidechains leaves the subagent branches out', () => {
    const dir = tempDir('arb-claude-');
    const withSc = cli([
      'import',
      'claude',
      join(CORPUS, 'claude-code-extra/subagents_layout'),
      '--db',
      join(dir, 'a.db'),
      '--json',
    ]).json();
    const without = cli([
      'import',
      'claude',
      join(CORPUS, 'claude-code-extra/subagents_layout'),
      '--no-sidechains',
      '--db',
      join(dir, 'b.db'),
      '--json',
    ]).json();
    expect(withSc.turns_added).toBeGreaterThan(without.turns_added);
    clean(join(dir, 'a.db'));
  });

  it('export --format source gives back the lines the turns were read from, byte for byte', () => {
    const db = join(tempDir('arb-claude-'), 'sessions.db');
    const file = join(CORPUS, 'claude-code/session_b.jsonl');
    cli(['import', 'claude', file, '--db', db]);
    const [only] = sids(db);
    const out = cli(['export', only.sid, '--format', 'source', '--db', db]);
    expect(out.code).toBe(0);
    // every record is followed by a newline; the file's last line had none
    expect(out.stdout).toBe(`${readFileSync(file, 'utf8').replace(/\n?$/, '')}\n`);
  });
});
