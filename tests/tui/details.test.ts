/**
 * What the transcript adds from a turn's source records, through the real pty and emulator: an Edit call opened to
 * its coloured diff and folded again, and thinking hidden behind one line, shown with t and hidden again; aider's
 * edits, output and reasoning the same way.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import { start } from './helpers.js';

const FIX = (p: string) => fileURLToPath(new URL(`../import/fixtures/${p}`, import.meta.url));

describe('details from source records in the transcript', () => {
  it('an Edit call opens to its diff (added lines green in the cells) and folds again (80x24)', async () => {
    const db = tempDb();
    const r = cli(['import', 'claude', FIX('corpus/claude-code/representative_messages.jsonl'), '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const t = await start({ db, cols: 80, rows: 24 });
    // the session, then its second turn: "create a decorator that takes parameters", an Edit that wrote a file
    t.press('l', 'G', 'k', 'k');
    await t.waitFor('000002 depth 1');
    // In a narrow pane the path first, whole (the result's first line shows when the call opens).
    await t.waitFor('A → Edit  /tmp/decorator_example.py · 1 line');
    expect(t.screen()).not.toContain('+def repeat(times):');
    t.press('o');
    await t.waitFor('+def repeat(times):');
    await t.waitFor('@@ -0,0 +1,14 @@');
    const add = t.find('+def repeat(times):')!;
    expect(t.cell(add.x, add.y)!.getFgColor()).toBe(114); // the diff's added colour (Style.diffAdd)
    const hunk = t.find('@@ -0,0 +1,14 @@')!;
    expect(t.cell(hunk.x, hunk.y)!.getFgColor()).toBe(81);
    expect(t.screen()).toContain('file_path: /tmp/decorator_example.py');
    t.press('o');
    await t.waitFor((x) => !x.screen().includes('+def repeat(times):'));
    expect(t.screen()).toContain('A → Edit  /tmp/decorator_example.py · 1 line');
  });

  it('thinking is one dim line until t shows it; t hides it again; NO_COLOR keeps the marks', async () => {
    const db = tempDb();
    const r = cli(['import', 'claude', FIX('claude/odd-lines.jsonl'), '--db', db]);
    expect(r.code, r.stderr).toBe(1); // the file's odd lines are reported, its turns imported
    const t = await start({ db, cols: 80, rows: 24, env: { NO_COLOR: '1' } });
    t.press('l', 'G');
    await t.waitFor('000003 depth 2');
    await t.waitFor('A ✻ thinking · 1 line hidden (t shows)');
    expect(t.screen()).not.toContain('secret reasoning');
    t.press('t');
    await t.waitFor('secret reasoning');
    expect(t.screen()).toContain('✻ thinking (t hides)');
    t.press('t');
    await t.waitFor('A ✻ thinking · 1 line hidden (t shows)');
    expect(t.screen()).not.toContain('secret reasoning');
    // the Bash call below it opens to its whole input and result
    t.press('o');
    await t.waitFor('command: sleep 100');
    expect(t.screen()).toContain('⎿ error · result · 1 line');
  });

  it('aider: a SEARCH/REPLACE block opens to its diff, the reasoning shows with t (80x24)', async () => {
    const db = tempDb();
    const r = cli(['import', 'aider', FIX('aider/agent_aider_worktree/custom_aider_history.md'), '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const t = await start({ db, cols: 80, rows: 24 });
    t.press('l', 'j');
    await t.waitFor('000001 depth 0');
    await t.waitFor('A ✻ thinking · 18 lines hidden (t shows)');
    await t.waitFor(/→ edit {2}tests\/test_\S* {2}·/);
    expect(t.screen()).not.toContain('<<<<<<< SEARCH');
    t.press('o');
    await t.waitFor('@@ -1,7 +1,38 @@');
    expect(t.screen()).toContain('path: tests/test_readme.py');
    expect(t.screen()).toContain(' def test_readme_contents():');
    t.press('t');
    await t.waitFor("Okay, let's tackle this problem.");
    expect(t.screen()).toContain('✻ thinking (t hides)');
  });

  it("aider: aider's own output, cut to three lines in the answer, opens whole (120x40)", async () => {
    const db = tempDb();
    const r = cli(['import', 'aider', FIX('aider/zen-mcp-server/.aider.chat.history.md'), '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const t = await start({ db, cols: 120, rows: 40 });
    // the session of seven turns, its second: `/add` of eight files, aider's ten lines of output
    t.press('l', 'j', 'j');
    await t.waitFor('000002 depth 1');
    await t.waitFor('A → aider  · Added config.py to the chat · 10 lines');
    expect(t.screen()).not.toContain('Added utils/token_utils.py to the chat');
    t.press('o');
    await t.waitFor('⎿ result · 10 lines');
    expect(t.screen()).toContain('Added utils/token_utils.py to the chat');
    t.press('o');
    await t.waitFor('A → aider  · Added config.py to the chat · 10 lines');
    expect(t.screen()).not.toContain('Added utils/token_utils.py to the chat');
  });
});
