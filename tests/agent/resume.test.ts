/**
 * `arborist resume`: the written transcript (lines, bytes, mode, place), the command, the audit event, the fake
 * `claude` run and its new turns coming back under the turn resumed from, and every refusal. The real binary,
 * real shards, a fake `claude` on PATH (fixtures/fake-claude.mjs).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planResume, writeResume } from '../../src/agent/index.js';
import { readClaude } from '../../src/import/claude/index.js';
import type { ParsedTurn } from '../../src/import/model.js';
import { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import {
  batesOf,
  cwdProject,
  fakeRuns,
  type Machine,
  machine,
  resumeEvents,
  rewoundSession,
  SID_A,
  SID_B,
  Transcript,
} from './helpers.js';

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(relative(dir, join(e.parentPath, e.name)));
  return out.sort();
}

/** A machine with the rewound session imported; `work` is the turns' cwd. */
function imported(): {
  m: Machine;
  work: string;
  source: string;
  lines: string[];
  bates: Record<string, string>;
} {
  const m = machine();
  const work = tempDir('arb-work-');
  const { file, t } = rewoundSession(m.projects, work);
  const r = cli(['import', 'claude', '--db', m.db], { env: m.env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const bates = batesOf(m.db, ['u1', 'u2', 'u3', 'u2x', 'u3x']);
  expect(Object.keys(bates)).toHaveLength(5);
  return { m, work, source: file, lines: t.lines, bates };
}

const byUuid = (lines: string[], uuid: string) => lines.find((l) => JSON.parse(l).uuid === uuid)!;
const snapshotOf = (lines: string[], id: string) =>
  lines.find((l) => {
    const o = JSON.parse(l);
    return o.type === 'file-history-snapshot' && o.messageId === id;
  })!;

/** The source lines the path to "Add a parser for arrays" (u2) is made of, in order. */
function pathToU2(lines: string[]): string[] {
  return [
    byUuid(lines, 'u1'),
    byUuid(lines, 'a1'),
    snapshotOf(lines, 'u2'),
    byUuid(lines, 'u2'),
    byUuid(lines, 'a2'),
    byUuid(lines, 'r2'),
    byUuid(lines, 'a2b'),
  ];
}

/** Written line i is source line i with its top-level sessionId's token, and only that, replaced. */
function expectSameButSession(written: string[], source: string[], oldId: string, newId: string): void {
  expect(written).toHaveLength(source.length);
  for (let i = 0; i < source.length; i++) {
    const src = JSON.parse(source[i]);
    const out = JSON.parse(written[i]);
    if ('sessionId' in src) {
      expect(out.sessionId).toBe(newId);
      // byte for byte: the old token back in its place gives the source line
      expect(written[i].replace(`"${newId}"`, `"${src.sessionId}"`)).toBe(source[i]);
      delete src.sessionId;
      delete out.sessionId;
    } else expect(written[i]).toBe(source[i]);
    expect(out).toEqual(src);
  }
  expect(source.join('\n')).toContain(oldId);
}

/** The chain of prompt uuids from the root down to `sourceId`, as the Claude Code reader reads a file. */
function chainIn(turns: ParsedTurn[], sourceId: string): string[] {
  const by = new Map(turns.map((t) => [t.sourceId, t]));
  const out: string[] = [];
  for (let t = by.get(sourceId); t; t = t.parentSourceId ? by.get(t.parentSourceId) : undefined)
    out.unshift(t.sourceId);
  return out;
}

describe('arborist resume --print', () => {
  it('shows the file, the lines of the path (not its sibling branch nor its child) and the command; writes nothing', () => {
    const { m, work, bates } = imported();
    const before = files(m.config);
    const r = cli(['resume', bates.u2, '--print', '--json', '--db', m.db], { env: m.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.written).toBe(false);
    expect(doc.source_bates).toBe(bates.u2);
    expect(doc.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(doc.project).toBe(cwdProject(work));
    expect(doc.file).toBe(join(m.projects, cwdProject(work), `${doc.session_id}.jsonl`));
    expect(doc.cwd).toBe(work);
    expect(doc.cwd_exists).toBe(true);
    expect(doc.turns).toEqual([
      { bates: bates.u1, sid: bates.u1.split('-')[0], lines: 3 },
      { bates: bates.u2, sid: bates.u2.split('-')[0], lines: 4 },
    ]);
    expect(doc.lines).toBe(7);
    // u2's records end with the snapshot Claude Code wrote for the next prompt (u3): another branch's line
    expect(doc.left_out).toBe(1);
    expect(doc.types).toEqual({ user: 3, assistant: 3, 'file-history-snapshot': 1 });
    expect(doc.command).toEqual(['claude', '--resume', doc.session_id]);
    expect(doc.executable).toMatch(/\/bin\/claude$/);
    expect(files(m.config)).toEqual(before);
    expect(resumeEvents(m.db)).toEqual([]);
    expect(fakeRuns(m)).toEqual([]);

    const h = cli(['resume', bates.u2, '--print', '--db', m.db], { env: m.env });
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('nothing written');
    expect(h.stdout).toMatch(/lines\s+7 lines from 2 turns/);
    expect(h.stdout).toContain(`cd -P ${work} && claude --resume `);
    expect(files(m.config)).toEqual(before);
  });

  it('without CLAUDE_CONFIG_DIR the session goes under ~/.claude/projects', () => {
    const { m, work, bates } = imported();
    const env = { ...m.env };
    delete (env as Record<string, string | undefined>).CLAUDE_CONFIG_DIR;
    const doc = cli(['resume', bates.u3x, '--print', '--json', '--db', m.db], { env }).json();
    expect(doc.file).toBe(join(env.HOME, '.claude', 'projects', cwdProject(work), `${doc.session_id}.jsonl`));
  });
});

describe('arborist resume --no-exec', () => {
  it('writes the path as a new session (0600, O_EXCL), each line as imported but its sessionId; one audit event', () => {
    const { m, lines, bates } = imported();
    const r = cli(['resume', bates.u2, '--no-exec', '--json', '--db', m.db], { env: m.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.written).toBe(true);
    const st = statSync(doc.file);
    expect(st.mode & 0o777).toBe(0o600);
    const written = readFileSync(doc.file, 'utf8');
    expect(written.endsWith('\n')).toBe(true);
    const out = written.slice(0, -1).split('\n');
    expectSameButSession(out, pathToU2(lines), SID_A, doc.session_id);
    // the hand-written line keeps its 1.0, its escapes, its spacing, and the sessionId nested in it
    const a2b = out.find((l) => l.includes('"uuid": "a2b"'))!;
    expect(a2b).toContain('"input_tokens": 1.0');
    expect(a2b).toContain('caf\\u00e9 \\/ 1e3');
    expect(a2b).toContain('"meta": {"sessionId": "nested-stays"}');
    expect(fakeRuns(m)).toEqual([]);

    expect(resumeEvents(m.db)).toEqual([
      { source_bates: bates.u2, new_session_id: doc.session_id, file: doc.file, lines: 7 },
    ]);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
    expect(cli(['chain-check', '--db', m.db], { env: m.env }).code).toBe(0);

    // Claude Code's own reader (ours) reads the written file as the same path, the turn's lines whole
    const back = readClaude(doc.file);
    expect(back.problems).toEqual([]);
    expect(chainIn(back.turns, 'u2')).toEqual(['u1', 'u2']);
    expect(back.turns.map((t) => t.sourceId).sort()).toEqual(['u1', 'u2']);
    expect(back.turns.every((t) => t.sourceSession === doc.session_id)).toBe(true);
    expect(back.turns.find((t) => t.sourceId === 'u2')!.raw).toEqual(out.slice(3));

    const h = cli(['resume', bates.u2, '--no-exec', '--db', m.db], { env: m.env });
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^wrote 7 lines to /);
    expect(h.stdout).toMatch(/run it with:\n {2}cd -P .* && claude --resume [0-9a-f-]{36}\n/);
    expect(resumeEvents(m.db)).toHaveLength(2);
  });

  it('never changes an existing file: the same session id again is refused, with no event', () => {
    const { m, bates } = imported();
    const s = Shard.open(m.db);
    try {
      const plan = planResume(s, bates.u3, { env: m.env });
      writeResume(s, plan);
      const bytes = readFileSync(plan.file);
      const again = planResume(s, bates.u3x, { env: m.env, sessionId: plan.session_id });
      expect(() => writeResume(s, again)).toThrow(/already exists: it was not changed/);
      expect(readFileSync(plan.file)).toEqual(bytes);
    } finally {
      s.close();
    }
    expect(resumeEvents(m.db)).toHaveLength(1);
  });

  it('works after Claude Code deleted the source transcript and its folder (the shard keeps the lines)', () => {
    const { m, source, lines, bates } = imported();
    rmSync(join(source, '..'), { recursive: true });
    const doc = cli(['resume', bates.u2, '--no-exec', '--json', '--db', m.db], { env: m.env }).json();
    expect(statSync(join(doc.file, '..')).mode & 0o777).toBe(0o700); // the project folder, made again
    const out = readFileSync(doc.file, 'utf8').slice(0, -1).split('\n');
    expectSameButSession(out, pathToU2(lines), SID_A, doc.session_id);
    expect(files(m.projects)).toEqual([relative(m.projects, doc.file)]);
  });

  it('a path across sessions: a resumed session replays the earlier one; its turn takes the earlier lines too', () => {
    const m = machine();
    const work = tempDir('arb-work-');
    const proj = join(m.projects, cwdProject(work));
    const a = new Transcript(SID_A, work);
    a.user('pa1', null, 'Explain the lexer')
      .text('qa1', 'pa1', 'It splits input into tokens.')
      .user('pa2', 'qa1', 'And the reader?')
      .text('qa2', 'pa2', 'It builds the tree from tokens.');
    a.write(join(proj, `${SID_A}.jsonl`), new Date('2026-03-02T10:00:00Z'));
    // `claude --resume` of A: A's lines again under B's sessionId, then a new prompt
    const b = new Transcript(SID_B, work);
    for (const l of a.lines) b.raw(l.replace(SID_A, SID_B));
    b.user('pb3', 'qa2', 'Continue: add error recovery').text('qb3', 'pb3', 'Recovery added.');
    b.write(join(proj, `${SID_B}.jsonl`), new Date('2026-03-02T11:00:00Z'));
    expect(cli(['import', 'claude', '--db', m.db], { env: m.env }).code).toBe(0);
    const bates = batesOf(m.db, ['pa1', 'pa2', 'pb3']);
    expect(bates.pb3.split('-')[0]).not.toBe(bates.pa2.split('-')[0]);

    const doc = cli(['resume', bates.pb3, '--no-exec', '--json', '--db', m.db], { env: m.env }).json();
    expect(doc.turns.map((t: { bates: string }) => t.bates)).toEqual([bates.pa1, bates.pa2, bates.pb3]);
    const out = readFileSync(doc.file, 'utf8').slice(0, -1).split('\n');
    // A's four lines (with A's id in the source) and B's two new ones, each with only its sessionId changed
    expectSameButSession(out.slice(0, 4), a.lines, SID_A, doc.session_id);
    expectSameButSession(out.slice(4), b.lines.slice(4), SID_B, doc.session_id);
    expect(chainIn(readClaude(doc.file).turns, 'pb3')).toEqual(['pa1', 'pa2', 'pb3']);
  });
});

describe('arborist resume --no-exec: the printed line, pasted into bash and into sh (dash)', () => {
  /**
   * The `run it with:` line of --no-exec's output. A word ending in newlines ends in quoted raw newlines (the only
   * portable way to write them), so the line may span lines.
   */
  const printedLine = (stdout: string) => /run it with:\n {2}([\s\S]*?)\nthen `/.exec(stdout)?.[1];
  // Anything stripControls would drop or turn into a newline: the printed text must carry none of it raw.
  const RAW_CONTROL = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/;

  // Folders a transcript may name (a cwd is whatever the lines carry): each must be the one the agent runs in,
  // with the printed arguments and nothing else run. Relative ones are taken from where the line is pasted.
  it.each([
    ['a newline (a folder with a space in its place exists too)', 'new\nline'],
    ['a carriage return, a tab and an escape sequence', 'cr\rtab\tesc\x1b[31mred'],
    ['a bidi override and a DEL', 'bidi\u202eevil\x7f'],
    ['spaces and both quotes', `it's a "quoted" dir`],
    ['$, a command substitution, backticks and !', 'cost $HOME $(touch pwned) `touch pwned2` !!'],
    ['a backslash and a non-ASCII name', 'back\\slash caf\u00e9'],
    ['a leading - (relative)', '-x'],
    ['only - (relative)', '-'],
    ['a relative path (CDPATH names a decoy)', 'plain'],
    ['a leading -, spaces, both quotes, a newline (relative)', `-x it's "q"\nz`],
    ['a newline at the end (a folder without it exists too)', 'trailing\n'],
    ['only newlines (relative)', '\n\n'],
    ['a name NFC would change, a % and a backslash-escape', 'cafe\u0301 100% \\0101 \\n'],
  ])('%s', (_name, name) => {
    const m = machine();
    const base = join(m.root, 'paste here');
    mkdirSync(base);
    const relativeCwd = name.startsWith('-') || name === 'plain' || name.startsWith('\n');
    const cwd = relativeCwd ? name : join(base, name);
    mkdirSync(join(base, name));
    // Where a wrong reading would land instead: the newline read as a space or dropped, CDPATH's copy of a
    // relative folder.
    mkdirSync(join(base, name.replace(/\n/g, ' ')), { recursive: true });
    if (name.trimEnd() !== '') mkdirSync(join(base, name.trimEnd()), { recursive: true });
    const decoy = join(m.root, 'decoy');
    mkdirSync(join(decoy, name), { recursive: true });
    rewoundSession(m.projects, cwd);
    expect(cli(['import', 'claude', '--db', m.db], { env: m.env }).code).toBe(0);
    const { u2 } = batesOf(m.db, ['u2']);

    const r = cli(['resume', u2, '--no-exec', '--db', m.db], { env: m.env, cwd: base });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const line = printedLine(r.stdout);
    expect(line, r.stdout).toBeDefined();
    expect(r.stdout.replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
    const id = (r.stdout.match(/claude --resume ([0-9a-f-]{36})/) ?? [])[1];
    expect(id).toBeDefined();

    // sh is dash on Debian: it has no $'...' (before POSIX.1-2024), so the line must not need it.
    for (const shell of ['bash', 'sh']) {
      const run = spawnSync(shell, ['-c', line!], {
        cwd: base,
        env: { ...m.env, CDPATH: decoy },
        encoding: 'utf8',
      });
      expect(run.status, `${shell}: ${run.stderr}`).toBe(0);
    }
    const runs = fakeRuns(m);
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run.cwd).toBe(realpathSync(join(base, name)));
      expect(run.argv).toEqual(['--resume', id]);
    }
    expect(existsSync(join(base, 'pwned'))).toBe(false);
    expect(existsSync(join(base, 'pwned2'))).toBe(false);
  });
});

describe('arborist resume --no-exec: a path the shell would read otherwise', () => {
  it('.. after a symlink: the pasted line goes where the kernel goes, as the agent run by arborist does', () => {
    const m = machine();
    const far = join(m.root, 'far');
    mkdirSync(join(far, 'sub'), { recursive: true });
    mkdirSync(join(far, 'target'));
    mkdirSync(join(m.root, 'target')); // where `..` taken off the text would go
    symlinkSync(join(far, 'sub'), join(m.root, 'link'));
    const cwd = `${m.root}/link/../target`;
    rewoundSession(m.projects, cwd);
    expect(cli(['import', 'claude', '--db', m.db], { env: m.env }).code).toBe(0);
    const { u2 } = batesOf(m.db, ['u2']);
    const r = cli(['resume', u2, '--no-exec', '--db', m.db], { env: m.env });
    expect(r.code, r.stderr).toBe(0);
    const line = /run it with:\n {2}(.*)\n/.exec(r.stdout)![1];
    const run = spawnSync('bash', ['-c', line], { env: m.env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(fakeRuns(m)[0].cwd).toBe(realpathSync(join(far, 'target')));
  });

  it.each([
    [
      'empty',
      '{"cwd":""}',
      /^arborist: the working directory the lines of .* record is empty: there is no folder to resume in\n$/,
    ],
    ['not text', '{"cwd":5}', /^arborist: the lines of .* record no working directory to resume in\n$/],
  ])(
    'a recorded folder that is %s: refused (`cd -P ./` would go wherever the line is pasted), nothing written',
    (_n, info, message) => {
      const m = machine();
      // The lines carry no cwd (the importer records none then); the session's recorded one is edited in.
      rewoundSession(m.projects, '');
      expect(cli(['import', 'claude', '--db', m.db], { env: m.env }).code).toBe(0);
      const { u2 } = batesOf(m.db, ['u2']);
      const s = Shard.open(m.db);
      try {
        dbOf(s).prepare('UPDATE session_sources SET info_json = ?').run(info);
      } finally {
        s.close();
      }
      for (const mode of ['--no-exec', '--print']) {
        const r = cli(['resume', u2, mode, '--db', m.db], { env: m.env });
        expect(r.stderr).toMatch(message);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
      }
      expect(resumeEvents(m.db)).toEqual([]);
      expect(files(m.projects).filter((f) => !f.includes(SID_A))).toEqual([]);
    },
  );

  it('a NUL byte in the recorded folder: refused (a shell would cut the path there), nothing written', () => {
    const m = machine();
    const work = tempDir('arb-work-');
    rewoundSession(m.projects, `${work}\0/elsewhere`);
    expect(cli(['import', 'claude', '--db', m.db], { env: m.env }).code).toBe(0);
    const { u2 } = batesOf(m.db, ['u2']);
    const r = cli(['resume', u2, '--no-exec', '--db', m.db], { env: m.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^arborist: the working directory the lines of .* record holds a NUL byte\n$/);
    expect(resumeEvents(m.db)).toEqual([]);
  });
});

describe('arborist resume (runs the agent)', () => {
  it('runs claude --resume ID in the turn’s cwd; its two new turns come back under the turn', () => {
    const { m, work, bates } = imported();
    const sid = bates.u2.split('-')[0];
    const rootOf = () =>
      cli(['list', '--json', '--db', m.db], { env: m.env })
        .json()
        .find((s: { sid: string }) => s.sid === sid).session_root;
    const rootBefore = rootOf();
    const r = cli(['resume', bates.u2, '--json', '--db', m.db], { env: m.env });
    expect(r.code).toBe(0);
    // the agent had the terminal: its output is the CLI's, before the summary
    expect(r.stdout).toMatch(/^fake claude: resumed [0-9a-f-]{36} \(7 lines\)/);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(r.stderr).toMatch(/^arborist: wrote 7 lines to .*; running claude --resume [0-9a-f-]{36} in /);
    const runs = fakeRuns(m);
    expect(runs).toEqual([{ argv: ['--resume', doc.session_id], cwd: work, file: doc.file }]);
    expect(doc.exit).toEqual({ code: 0, signal: null });
    expect(doc.imported.turns_added).toBe(2);
    const [first, second] = doc.imported.added;
    const show = (b: string) => cli(['show', b, '--json', '--db', m.db], { env: m.env }).json();
    expect(show(first)).toMatchObject({
      parent_bates: bates.u2,
      question: 'Carry on from here: what would you change next?',
      source: 'claude',
    });
    expect(show(second)).toMatchObject({ parent_bates: first, question: 'Then do that split, please.' });
    expect(first.split('-')[0]).not.toBe(sid); // a new session, hanging under the old one
    expect(rootOf()).not.toBe(rootBefore); // a cross-session child ripples up its parent's session root
    expect(show(bates.u2).n_children).toBe(2);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
    // importing everything again adds nothing: the replayed lines are known, the new ones too
    const again = cli(['import', 'claude', '--json', '--db', m.db], { env: m.env }).json();
    expect(again.turns_added).toBe(0);
    expect(resumeEvents(m.db)).toHaveLength(1);
  });

  it('resume.command in config.json: argv with {sessionId}, {sessionFile}, {cwd}; its program by path', () => {
    const { m, work, bates } = imported();
    const fake = join(m.root, 'bin', 'claude');
    writeFileSync(
      join(m.home, 'config.json'),
      JSON.stringify({
        resume: { command: [fake, '--resume', '{sessionId}', '--file={sessionFile}', '--cwd', '{cwd}'] },
      }),
    );
    const r = cli(['resume', bates.u3x, '--json', '--db', m.db], { env: m.envWithoutClaude });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(doc.configured).toBe(true);
    expect(fakeRuns(m)[0].argv).toEqual(['--resume', doc.session_id, `--file=${doc.file}`, '--cwd', work]);
    expect(doc.imported.turns_added).toBe(2);

    writeFileSync(join(m.home, 'config.json'), JSON.stringify({ resume: { command: 42 } }));
    const bad = cli(['resume', bates.u3x, '--db', m.db], { env: m.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^arborist: .*resume\.command must be a command line or a non-empty list/);
  });

  it('passes the agent’s exit status on, and still imports what it wrote', () => {
    const { m, bates } = imported();
    const r = cli(['resume', bates.u3, '--db', m.db], { env: { ...m.env, FAKE_CLAUDE_EXIT: '3' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/claude exit 3; 2 new turns under /);
  });
});

describe('arborist resume refuses (one line, exit 2, nothing written)', () => {
  function refused(m: Machine, args: string[], env: Record<string, string>, why: RegExp): void {
    const before = files(m.config);
    const r = cli(['resume', ...args, '--db', m.db], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(why);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(files(m.config)).toEqual(before);
    expect(resumeEvents(m.db)).toEqual([]);
    expect(fakeRuns(m)).toEqual([]);
  }

  it('a turn asked in arborist', () => {
    const { m } = imported();
    const asked = cli(['ask', 'what about YAML?', '--answer', 'later', '--json', '--db', m.db], {
      env: m.env,
    });
    expect(asked.code).toBe(0);
    const b = asked.json().bates;
    refused(m, [b], m.env, /was asked in arborist: there is no agent to resume it in$/m);
  });

  it('a working directory that no longer exists (--print still shows the plan)', () => {
    const { m, work, bates } = imported();
    rmSync(work, { recursive: true });
    refused(
      m,
      [bates.u2],
      m.env,
      new RegExp(`working directory of ${bates.u2} \\(${work}\\) no longer exists`),
    );
    const p = cli(['resume', bates.u2, '--print', '--db', m.db], { env: m.env });
    expect(p.code).toBe(0);
    expect(p.stdout).toContain('(no longer exists)');
  });

  it('no claude on PATH', () => {
    const { m, bates } = imported();
    refused(m, [bates.u2], m.envWithoutClaude, /^arborist: claude is not on PATH: nothing was written/);
  });

  it('an unknown or malformed id, and --print with --no-exec', () => {
    const { m, bates } = imported();
    refused(m, ['zzzzzzzz-000009'], m.env, /^arborist: no turn zzzzzzzz-000009/);
    refused(m, ['not-an-id'], m.env, /is not a Bates id/);
    refused(m, [bates.u2, '--print', '--no-exec'], m.env, /choose one/);
  });
});
