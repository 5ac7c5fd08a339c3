/**
 * `arborist resume` into Codex: the written rollout (its place and name, its session_meta, the path's records),
 * the command run without a shell in the turn's cwd (a fake `codex` on PATH: fixtures/fake-codex.mjs), the new
 * turns coming back under the turn, config.json's per-agent command, and the sources that cannot resume. The real
 * binary, real shards, the real 0.125 rollout (tests/import/fixtures/codex/SOURCES.md) in a temp CODEX_HOME.
 */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rolloutStamp } from '../../src/agent/index.js';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import {
  BASE_PATH,
  type CodexMachine,
  codexMachine,
  codexRuns,
  SESSION,
  TURN1,
  TURN2,
} from './codex-helpers.js';
import { resumeEvents } from './helpers.js';

const runs = codexRuns;

const show = (m: CodexMachine, b: string) => cli(['show', b, '--json', '--db', m.db], { env: m.env }).json();

describe('rolloutStamp', () => {
  it('names the folder and file by local time, as Codex does', () => {
    const d = new Date(2026, 0, 5, 7, 8, 9); // local time
    expect(rolloutStamp(d)).toEqual({ dir: ['2026', '01', '05'], stamp: '2026-01-05T07-08-09' });
  });
});

describe('arborist resume into Codex', () => {
  it('--print: a new rollout under CODEX_HOME/sessions/YYYY/MM/DD, session_meta first, the first turn’s records after', () => {
    const m = codexMachine();
    const r = cli(['resume', m.bates[TURN1], '--print', '--json', '--db', m.db], { env: m.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({
      agent: 'codex',
      written: false,
      cwd: m.work,
      cwd_exists: true,
      command: ['codex', 'resume', doc.session_id],
      configured: false,
      projects_dir: join(m.codexHome, 'sessions'),
    });
    // the name is Codex's: local time (TZ is set), the new id
    const rel = relative(join(m.codexHome, 'sessions'), doc.file);
    expect(rel).toMatch(
      new RegExp(
        `^\\d{4}/\\d{2}/\\d{2}/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${doc.session_id}\\.jsonl$`,
      ),
    );
    expect(rel.slice(0, 10).replaceAll('/', '-')).toBe(basename(doc.file).slice(8, 18));
    // line 1 of the source is its session_meta (left out); lines 2..19 are the first turn
    expect(doc.lines).toBe(19);
    expect(doc.left_out).toBe(1);
    expect(doc.turns).toEqual([{ bates: m.bates[TURN1], sid: m.bates[TURN1].split('-')[0], lines: 18 }]);
    expect(doc.types.session_meta).toBe(1);
    expect(statSync(m.codexHome).isDirectory()).toBe(true);
    expect(resumeEvents(m.db)).toEqual([]);
  });

  it('--no-exec writes it (0600); importing it adds nothing; an appended turn comes back under the resumed turn, not the newer one', () => {
    const m = codexMachine();
    const r = cli(['resume', m.bates[TURN1], '--no-exec', '--json', '--db', m.db], { env: m.env });
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(statSync(doc.file).mode & 0o777).toBe(0o600);
    const out = readFileSync(doc.file, 'utf8').slice(0, -1).split('\n');
    expect(out).toHaveLength(19);
    // the records of the path, byte for byte, after the new session_meta
    expect(out.slice(1)).toEqual(m.source.slice(1, 19));
    const meta = JSON.parse(out[0]);
    const orig = JSON.parse(m.source[0]);
    expect(meta.type).toBe('session_meta');
    expect(orig.payload.id).toBe(SESSION);
    expect(meta.payload.id).toBe(doc.session_id);
    expect(meta.payload.cwd).toBe(m.work);
    expect(meta.payload).not.toHaveProperty('history_mode');
    const { id: _a, timestamp: _b, ...rest } = meta.payload;
    const { id: _c, timestamp: _d, ...origRest } = orig.payload;
    expect(rest).toEqual(origRest); // the rest of the original's session_meta, kept
    expect(resumeEvents(m.db)).toHaveLength(1);
    expect(r.json().session_id).toBe(doc.session_id);

    const again = cli(['import', 'codex', doc.file, '--json', '--db', m.db], { env: m.env }).json();
    expect(again.turns_added).toBe(0);

    // what Codex would append: one turn, with its own turn id
    const turn = '019e2000-0000-7000-8000-000000000001';
    const ts = '2026-05-12T10:00:00.000Z';
    const line = (type: string, payload: object) => JSON.stringify({ timestamp: ts, type, payload });
    appendFileSync(
      doc.file,
      `${[
        line('event_msg', { type: 'task_started', turn_id: turn }),
        line('turn_context', { turn_id: turn, cwd: m.work }),
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'and now?' }],
        }),
        line('event_msg', { type: 'user_message', message: 'and now?' }),
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'done' }],
        }),
        line('event_msg', { type: 'task_complete', turn_id: turn }),
      ].join('\n')}\n`,
    );
    const imp = cli(['import', 'codex', doc.file, '--json', '--db', m.db], { env: m.env }).json();
    expect(imp.turns_added).toBe(1);
    const s = Shard.open(m.db, { readonly: true });
    const [[, added]] = s.turnsBySourceId('codex', [turn]);
    s.close();
    expect(show(m, added)).toMatchObject({
      parent_bates: m.bates[TURN1],
      question: 'and now?',
      source: 'codex',
    });
    expect(show(m, m.bates[TURN1]).n_children).toBe(2); // the original's second turn, and this branch
    const all = cli(['import', 'codex', '--json', '--db', m.db], { env: m.env }).json();
    expect(all.turns_added).toBe(0);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
  });

  it('runs codex resume ID without a shell in the turn’s cwd; its new turn comes back under the turn', () => {
    const m = codexMachine();
    const r = cli(['resume', m.bates[TURN2], '--json', '--db', m.db], { env: m.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fake codex: resumed [0-9a-f-]{36} \(\d+ lines\)/);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(r.stderr).toMatch(/^arborist: wrote \d+ lines to .*; running codex resume [0-9a-f-]{36} in /);
    expect(runs(m)).toEqual([{ argv: ['resume', doc.session_id], cwd: m.work, file: doc.file }]);
    expect(doc.turns.map((t: { bates: string }) => t.bates)).toEqual([m.bates[TURN1], m.bates[TURN2]]);
    expect(doc.imported.turns_added).toBe(1);
    expect(show(m, doc.imported.added[0])).toMatchObject({
      parent_bates: m.bates[TURN2],
      question: 'Carry on from here: what would you change next?',
      source: 'codex',
    });
    expect(resumeEvents(m.db)).toHaveLength(1);
  });

  it('resume.codex.command in config.json replaces the command (placeholders filled); resume.command stays Claude’s', () => {
    const m = codexMachine();
    const fake = join(m.root, 'bin', 'codex');
    const cfg = join(m.env.ARBORIST_HOME, 'config.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        resume: {
          command: ['claude-elsewhere', '--resume', '{sessionId}'],
          codex: { command: [fake, 'resume', '{sessionId}', '--file={sessionFile}', '--cwd', '{cwd}'] },
        },
      }),
    );
    const r = cli(['resume', m.bates[TURN1], '--json', '--db', m.db], {
      env: { ...m.env, PATH: BASE_PATH },
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(doc.configured).toBe(true);
    expect(runs(m)[0].argv).toEqual(['resume', doc.session_id, `--file=${doc.file}`, '--cwd', m.work]);

    writeFileSync(cfg, JSON.stringify({ resume: { codex: { command: [] } } }));
    const bad = cli(['resume', m.bates[TURN1], '--db', m.db], { env: m.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^arborist: .*resume\.codex\.command must be a command line or a non-empty list/,
    );
    writeFileSync(cfg, JSON.stringify({ resume: { codex: { comand: ['x'] } } }));
    expect(cli(['resume', m.bates[TURN1], '--db', m.db], { env: m.env }).stderr).toMatch(
      /unknown setting resume\.codex\.comand \(known: command\)/,
    );
    writeFileSync(cfg, JSON.stringify({ resume: { opencode: { command: ['x'] } } }));
    expect(cli(['resume', m.bates[TURN1], '--db', m.db], { env: m.env }).stderr).toMatch(
      /unknown setting resume\.opencode \(known: command, claude, codex, copilot, pi, aider\)/,
    );
    writeFileSync(cfg, JSON.stringify({ resume: { command: ['a'], claude: { command: ['b'] } } }));
    expect(cli(['resume', m.bates[TURN1], '--db', m.db], { env: m.env }).stderr).toMatch(
      /resume\.command and resume\.claude\.command both set/,
    );
    expect(resumeEvents(m.db)).toHaveLength(1);
  });

  it('no codex on PATH: one line naming the setting, nothing written', () => {
    const m = codexMachine();
    const r = cli(['resume', m.bates[TURN1], '--db', m.db], { env: { ...m.env, PATH: BASE_PATH } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^arborist: codex is not on PATH: nothing was written \(install Codex, or set resume\.codex\.command in /,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(resumeEvents(m.db)).toEqual([]);
    expect(runs(m)).toEqual([]);
  });

  it('a rollout whose turns have no Codex turn ids (0.77) is refused in one line: its copy would import twice', () => {
    const m = codexMachine();
    const old = fileURLToPath(new URL('../import/fixtures/codex/home/sessions/2026/01/02/', import.meta.url));
    const imp = cli(['import', 'codex', old, '--json', '--db', m.db], { env: m.env }).json();
    expect(imp.turns_added).toBe(1);
    const list = cli(['list', '--json', '--db', m.db], { env: m.env }).json();
    const sid = list.find(
      (s: { sid: string }) => !Object.values(m.bates).some((b) => b.startsWith(s.sid)),
    ).sid;
    const r = cli(['resume', `${sid}-000001`, '--print', '--db', m.db], { env: m.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gave its turns no ids: a copy of it would import as new turns/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('arborist resume: an agent arborist cannot resume into', () => {
  it('says why in one line (exit 2), writes nothing, runs nothing', () => {
    const m = codexMachine();
    const fixtures = fileURLToPath(new URL('../import/fixtures/', import.meta.url));
    for (const [kind, path, why] of [
      [
        'gemini',
        'gemini/gemini-home',
        /came from Gemini CLI: gemini --session-file copies the messages into a new session of its own/,
      ],
      [
        'opencode',
        'opencode/db-1.18.33/opencode.db',
        /came from OpenCode: OpenCode resumes only sessions in its own database/,
      ],
    ] as const) {
      const imp = cli(['import', kind, join(fixtures, path), '--json', '--db', m.db], { env: m.env }).json();
      expect(imp.turns_added).toBeGreaterThan(0);
      const turns = cli(['list', '--json', '--db', m.db], { env: m.env }).json();
      const s = Shard.open(m.db, { readonly: true });
      const b = turns
        .flatMap((t: { sid: string }) => s.pathTo(`${t.sid}-000001`))
        .find((t: { source: string | null }) => t.source === kind).bates;
      s.close();
      for (const extra of [[], ['--print'], ['--no-exec']]) {
        const r = cli(['resume', b, ...extra, '--db', m.db], { env: m.env });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(why);
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      }
    }
    expect(resumeEvents(m.db)).toEqual([]);
    expect(runs(m)).toEqual([]);
  });
});

describe('arborist resume: a path of more than one agent', () => {
  it('is refused in one line naming the turn of the other agent', () => {
    const m = codexMachine();
    const s = Shard.open(m.db);
    s.createSession({ sid: 'pppp', created_at: '2026-05-12T00:00:00.000Z' });
    const odd = s.addTurn({
      question: 'a Pi turn under a Codex one (only an edited shard has this)',
      answer_text: 'x',
      created_at: '2026-05-12T00:00:00.000Z',
      source: 'pi',
      source_id: 'pppp/00000001',
      audit: 'imported',
      session: 'pppp',
      parent: m.bates[TURN2],
    }).bates;
    s.close();
    const r = cli(['resume', odd, '--print', '--db', m.db], { env: m.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^arborist: ${m.bates[TURN1]}, on the path to ${odd}, came from Codex, not Pi: a path of one agent's turns can be resumed\\n$`,
      ),
    );
  });
});
