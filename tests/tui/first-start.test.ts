import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { start } from './helpers.js';

const OC_HOME = fileURLToPath(new URL('../import/fixtures/openclaw/home', import.meta.url));
const CORPUS = fileURLToPath(new URL('../import/fixtures/corpus/claude-code', import.meta.url));

describe('the first start on an empty shard', () => {
  it('offers the histories found on this machine beside the demo, and i imports them', async () => {
    const dir = tempDir('arb-first-');
    const state = join(dir, 'openclaw');
    cpSync(OC_HOME, state, { recursive: true });
    const db = join(dir, 'sessions.db');
    // Only OpenClaw here: the other readers' default places do not exist under this HOME.
    const t = await start({ db, cols: 100, rows: 30, env: { HOME: dir, OPENCLAW_STATE_DIR: state } });
    await t.waitFor('This shard is empty.');
    await t.waitFor(/OpenClaw: 5 files in/);
    // the home folder as ~ (it showed the whole /tmp/arb-first-.../openclaw)
    expect(t.screen()).toContain('OpenClaw: 5 files in ~/openclaw');
    expect(t.screen()).toMatch(/Press i to import it, d for a demo, q to quit/);
    t.press('i');
    await t.waitFor(/imported 11 turns/, 20_000);
    // three live: the reset's session stays in the main entry's usage family (docs/import.md)
    await t.waitFor('sessions 3');
    await t.quit();
    const v = cli(['verify', '--db', db, '--json']);
    expect(v.json().ok).toBe(true);
    expect(cli(['archive', 'list', '--db', db, '--json']).json().length).toBe(1);
  });

  it('i imports every agent found, in one child import', async () => {
    const dir = tempDir('arb-first-');
    const state = join(dir, 'openclaw');
    cpSync(OC_HOME, state, { recursive: true });
    const claude = join(dir, '.claude/projects/-work-demo');
    mkdirSync(claude, { recursive: true });
    for (const f of ['session_b.jsonl', 'representative_messages.jsonl'])
      cpSync(join(CORPUS, f), join(claude, f));
    const db = join(dir, 'sessions.db');
    const t = await start({ db, cols: 100, rows: 30, env: { HOME: dir, OPENCLAW_STATE_DIR: state } });
    await t.waitFor(/OpenClaw: +5 files in/);
    await t.waitFor(/Claude Code: 2 files in/);
    t.press('i');
    // both agents' turns in one import: the Claude Code transcripts' and OpenClaw's 11
    const claudeTurns = cli(['import', 'claude', claude, '--db', join(dir, 'alone.db'), '--json']).json()
      .turns_added;
    await t.waitFor(new RegExp(`imported ${claudeTurns + 11} turns`), 20_000);
    await t.quit();
    expect(cli(['verify', '--db', db, '--json']).json().ok).toBe(true);
  });

  it('a shard with sessions offers nothing', async () => {
    const dir = tempDir('arb-first-');
    const state = join(dir, 'openclaw');
    cpSync(OC_HOME, state, { recursive: true });
    const db = join(dir, 'sessions.db');
    expect(cli(['ask', 'hello', '--answer', 'hi', '--db', db]).code).toBe(0);
    const t = await start({ db, cols: 100, rows: 30, env: { HOME: dir, OPENCLAW_STATE_DIR: state } });
    await t.waitFor('sessions 1');
    expect(t.screen()).not.toMatch(/OpenClaw: /);
    await t.quit();
  });
});
