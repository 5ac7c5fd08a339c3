/**
 * `r` through a real pty: a turn in the middle of a rewound Claude Code session, the confirmation, the fake
 * `claude` given the terminal (the browser off the alternate screen, the fake reading our keys), the watcher
 * importing its first turn while it still runs, the browser back with both new turns under the turn; the same for
 * a Codex turn (the fake `codex`). And the refusals: in the overlay, or in the status line for a turn no agent
 * can continue.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readClaude } from '../../src/import/claude/index.js';
import { codexMachine, codexRuns, TURN1 } from '../agent/codex-helpers.js';
import { fakeRuns, machine, resumeEvents } from '../agent/helpers.js';
import { cli } from '../support/cli.js';
import { start } from './helpers.js';

const REWIND = fileURLToPath(
  new URL('../import/fixtures/corpus/claude-code/dag_compact_after_rewind.jsonl', import.meta.url),
);

function questions(db: string): string[] {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare('SELECT question FROM nodes ORDER BY id').pluck().all() as string[];
  } finally {
    d.close();
  }
}

async function until(what: () => boolean, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!what()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

/** The corpus's rewound session (cwd /tmp) as Claude Code keeps it, imported. */
function rewound() {
  const m = machine();
  const proj = join(m.projects, '-tmp');
  mkdirSync(proj, { recursive: true });
  const source = join(proj, 'dag_compact_after_rewind.jsonl');
  copyFileSync(REWIND, source);
  const r = cli(['import', 'claude', '--json', '--db', m.db], { env: m.env });
  expect(r.code).toBe(0);
  const tree = cli(['list', '--json', '--db', m.db], { env: m.env }).json();
  const sid = tree[0].sid as string;
  return { m, source, proj, sid, second: `${sid}-000003` };
}

describe('TUI: r resumes a Claude Code turn in the agent', () => {
  it('confirm, the agent runs on our terminal, and the browser comes back with its turns under the turn', async () => {
    const { m, source, proj, sid, second } = rewound();
    const t = await start({ db: m.db, cols: 120, rows: 40, env: { ...m.env, FAKE_CLAUDE_WAIT: '1' } });
    t.press('right');
    await t.waitFor('000003 Second attempt');
    t.press('down', 'down', 'down');
    await t.waitFor(`${second} · imported`);

    t.press('r');
    await t.waitFor(`resume ${second} in Claude Code`);
    await t.waitFor('writes   4 lines from 2 turns');
    const screen = t.screen();
    expect(screen).toMatch(/project {2}-tmp {2}\(in /);
    const id = /session {2}([0-9a-f-]{36}) \(new\)/.exec(screen)![1];
    expect(screen).toContain(`runs     claude --resume ${id}`);
    expect(screen).toContain('in       /tmp');
    expect(existsSync(join(proj, `${id}.jsonl`))).toBe(false); // nothing before the confirmation

    t.press('enter');
    await t.waitFor('fake claude: waiting for Enter', 8000);
    expect(t.altScreen).toBe(false);
    // The watcher follows the written file while the agent runs: its first turn is in the shard already.
    const took = await until(
      () => questions(m.db).includes('Carry on from here: what would you change next?'),
      3000,
    );
    console.log(`resume: the agent's first turn imported ${took} ms after the fake waited`);

    t.press('enter'); // to the fake: it reads the line, writes its second turn, exits
    await t.waitFor(`claude exit 0: 2 new turns under ${second}`, 8000);
    expect(t.altScreen).toBe(true);
    await t.waitFor('000003 Second attempt ⑂2');
    await t.waitFor(/[├└] ↳ [a-z0-9]{8}-000001 Carry on from here/);
    const lines = t.lines();
    const at = lines.findIndex((l) => l.includes('000003 Second attempt ⑂2'));
    // Its two children (in Merkle order: by sid, then seq), one column in: the new session's turn as a link,
    // and Keep going (with its own child below it).
    const below = lines.slice(at + 1, at + 4);
    const link = below.find((l) => /[├└] ↳ [a-z0-9]{8}-000001 Carry on from here/.test(l));
    const keep = below.find((l) => /[├└] 000004 Keep going/.test(l));
    expect(link, t.screen()).toBeDefined();
    expect(keep, t.screen()).toBeDefined();
    const col = (l: string) => l.search(/[├└]/);
    expect(col(link!)).toBe(col(keep!));
    expect(col(link!)).toBeGreaterThan(col(lines[at]));

    const runs = fakeRuns(m);
    expect(runs).toEqual([{ argv: ['--resume', id], cwd: '/tmp', file: join(proj, `${id}.jsonl`) }]);
    const child = /↳ ([a-z0-9]{8}-000001)/.exec(link!)![1];
    const show = (b: string) => cli(['show', b, '--json', '--db', m.db], { env: m.env }).json();
    expect(show(child).parent_bates).toBe(second);
    expect(show(`${child.split('-')[0]}-000002`)).toMatchObject({
      parent_bates: child,
      question: 'Then do that split, please.',
    });
    expect(child.startsWith(sid)).toBe(false);
    expect(resumeEvents(m.db)).toEqual([
      { source_bates: second, new_session_id: id, file: join(proj, `${id}.jsonl`), lines: 4 },
    ]);

    // The written file: the source's lines of the path (Start, its answer, Second attempt, its answer), only
    // their sessionId changed, then the fake's; the Claude Code reader reads it as the same path and on.
    const src = readFileSync(source, 'utf8').split('\n');
    const written = readFileSync(join(proj, `${id}.jsonl`), 'utf8').split('\n');
    const expected = [0, 1, 4, 5].map((i) => src[i]);
    for (let i = 0; i < 4; i++) {
      const old = JSON.parse(expected[i]).sessionId;
      expect(written[i].replace(`"sessionId":"${id}"`, `"sessionId":"${old}"`)).toBe(expected[i]);
    }
    const back = readClaude(join(proj, `${id}.jsonl`)).turns;
    const by = new Map(back.map((x) => [x.sourceId, x]));
    const chain: string[] = [];
    for (
      let x = back.find((y) => y.question === 'Then do that split, please.');
      x;
      x = x.parentSourceId ? by.get(x.parentSourceId) : undefined
    )
      chain.unshift(x.question);
    expect(chain).toEqual([
      'Start',
      'Second attempt',
      'Carry on from here: what would you change next?',
      'Then do that split, please.',
    ]);

    expect((await t.quit()).code).toBe(0);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
  });

  it('told to stop (SIGTERM) while the agent runs: the agent goes too, and the terminal is given back', async () => {
    const { m, second } = rewound();
    const pidFile = join(m.root, 'fake.pid');
    const t = await start({
      db: m.db,
      cols: 120,
      rows: 40,
      env: { ...m.env, FAKE_CLAUDE_WAIT: '1', FAKE_CLAUDE_PID: pidFile, FAKE_CLAUDE_NOHUP: '1' },
    });
    t.press('right');
    await t.waitFor('000003 Second attempt');
    t.press('down', 'down', 'down');
    await t.waitFor(`${second} · imported`);
    t.press('r');
    await t.waitFor('y/Enter resumes');
    t.press('y');
    await t.waitFor('fake claude: waiting for Enter', 8000);
    const fake = Number(readFileSync(pidFile, 'utf8'));
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      expect(alive(fake)).toBe(true);
      t.kill('SIGTERM');
      const exit = await t.close();
      expect(exit.signal).toBe(15);
      await until(() => !alive(fake), 3000);
      expect(t.altScreen).toBe(false);
    } finally {
      if (alive(fake)) process.kill(fake, 'SIGKILL'); // a failed test leaves no agent behind
    }
  });

  it('a turn asked in arborist: the status line says why in one line, names a; no overlay, nothing written', async () => {
    const m = machine();
    const asked = cli(['ask', 'what is a rope?', '--answer', 'a tree of strings', '--json', '--db', m.db], {
      env: m.env,
    });
    const bates = asked.json().bates as string;
    const t = await start({ db: m.db, cols: 200, rows: 40, env: m.env });
    t.press('right');
    await t.waitFor('000001 what is a rope?');
    t.press('down');
    await t.waitFor(`${bates} · manual`);
    t.press('r');
    await t.waitFor(`${bates} was asked in arborist: there is no agent to resume it in; a asks a follow-up`);
    expect(t.screen()).not.toContain('cannot resume');
    expect(t.screen()).not.toContain('Nothing was written.');
    expect(readdirSync(m.projects)).toEqual([]);
    expect(resumeEvents(m.db)).toEqual([]);
    expect(fakeRuns(m)).toEqual([]);
  });

  it('no claude on PATH: refused in the overlay before anything is written', async () => {
    const { m, proj, second } = rewound();
    const t = await start({ db: m.db, cols: 120, rows: 40, env: m.envWithoutClaude });
    t.press('right');
    await t.waitFor('000003 Second attempt');
    t.press('down', 'down', 'down');
    await t.waitFor(`${second} · imported`);
    t.press('r');
    await t.waitFor(`cannot resume ${second}`);
    expect(t.screen()).toContain('claude is not on PATH: nothing was written');
    t.press('enter');
    await t.waitFor((x) => !x.screen().includes('cannot resume'));
    expect(readdirSync(proj)).toEqual(['dag_compact_after_rewind.jsonl']);
    expect(resumeEvents(m.db)).toEqual([]);
  });

  it('a Codex turn: the overlay names Codex and its rollout; codex resume runs in the turn’s cwd; its turn comes back under it', async () => {
    const m = codexMachine();
    const first = m.bates[TURN1];
    const t = await start({ db: m.db, cols: 140, rows: 40, env: m.env });
    t.press('right');
    await t.waitFor('000001 show tools');
    t.press('down');
    await t.waitFor(`${first} · imported`);
    t.press('r');
    await t.waitFor(`resume ${first} in Codex`);
    await t.waitFor('writes   19 lines from 1 turn');
    const id = /session {2}([0-9a-f-]{36}) \(new\)/.exec(t.screen())![1];
    expect(t.screen()).toContain(`runs     codex resume ${id}`);
    t.press('enter');
    await t.waitFor(`codex exit 0: 1 new turn under ${first}`, 8000);
    expect(t.altScreen).toBe(true);
    const runs = codexRuns(m);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ argv: ['resume', id], cwd: m.work });
    expect(runs[0].file).toMatch(
      new RegExp(`/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-[0-9T-]+-${id}\\.jsonl$`),
    );
    await t.waitFor(/[├└] ↳ [a-z0-9]{8}-000001 Carry on from here/);
    const show = (b: string) => cli(['show', b, '--json', '--db', m.db], { env: m.env }).json();
    expect(show(first).n_children).toBe(2);
    expect(resumeEvents(m.db)).toHaveLength(1);
  });
});
