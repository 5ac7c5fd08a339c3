import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import { start } from './helpers.js';

const CLAUDE = fileURLToPath(
  new URL('../import/fixtures/corpus/claude-code/representative_messages.jsonl', import.meta.url),
);

describe('tool calls in the transcript', () => {
  it('shows an imported call as one line, opens it with o, folds it again with o (80x24)', async () => {
    const db = tempDb();
    const r = cli(['import', 'claude', CLAUDE, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const t = await start({ db, cols: 80, rows: 24 });
    // the session, then its third turn: "Can you run that example", whose answer starts with a Bash call
    t.press('l', 'G', 'k');
    await t.waitFor('000003 depth 2');
    // The command first, in a narrow pane: the two-fifths split left it 10 columns (`python /t…  · Hello, Al…`).
    await t.waitFor('A → Bash  python /tmp/decorator_e… · 3 lines');
    expect(t.screen()).not.toContain('    Hello, Alice!');
    t.press('o');
    await t.waitFor('A → Bash  python /tmp/decorator_example.py');
    // Its whole input and result, read from the turn's source records (src/import/details.ts).
    await t.waitFor('⎿ result · 3 lines');
    const lines = t.lines();
    const at = lines.findIndex((l) => l.includes('A → Bash  python /tmp/decorator_example.py'));
    expect(lines[at + 1]).toContain('│     command: python');
    const res = lines.findIndex((l) => l.includes('⎿ result · 3 lines'));
    expect(res).toBeGreaterThan(at + 1);
    for (let i = 1; i <= 3; i++) expect(lines[res + i]).toContain('│       Hello, Alice!');
    t.press('o');
    await t.waitFor(/A → Bash .*· 3 lines/);
    expect(t.screen()).not.toContain('    Hello, Alice!');
  });
});
