/**
 * `arborist resume` into GitHub Copilot CLI: the written `session-state/<id>/events.jsonl` (session.start first
 * with the new id, the path's events byte for byte), `copilot --resume <id>` run without a shell in the turn's
 * cwd (a fake `copilot` on PATH: fixtures/fake-copilot.mjs), and its new turn coming back under the turn. The
 * real 1.0.34 log (tests/import/fixtures/copilot/SOURCES.md) in a temp COPILOT_HOME.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { resumeEvents } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('../import/fixtures/copilot/events-1.0.34.jsonl', import.meta.url));
const FAKE = fileURLToPath(new URL('./fixtures/fake-copilot.mjs', import.meta.url));
const ORIGINAL_SESSION = '96ef38f0-9d09-45c3-8124-6448c36090ed';
const ORIGINAL_CWD = '/home/wei/repo/VibeCodingTracker';
const BASE_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

function copilotMachine() {
  const root = tempDir('arb-copilot-resume-');
  const home = join(root, 'copilot-home');
  const work = join(root, 'work');
  const bin = join(root, 'bin');
  for (const d of [work, bin, join(root, 'arborist-home')]) mkdirSync(d, { recursive: true });
  const dest = join(home, 'session-state', ORIGINAL_SESSION, 'events.jsonl');
  mkdirSync(dirname(dest), { recursive: true });
  const text = readFileSync(FIXTURE, 'utf8').replaceAll(ORIGINAL_CWD, work);
  writeFileSync(dest, text);
  writeFileSync(join(bin, 'copilot'), `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' "$@"\n`);
  chmodSync(join(bin, 'copilot'), 0o755);
  const log = join(root, 'fake-copilot.log');
  const env = {
    HOME: join(root, 'user-home'),
    COPILOT_HOME: home,
    ARBORIST_HOME: join(root, 'arborist-home'),
    FAKE_COPILOT_LOG: log,
    PATH: `${bin}:${BASE_PATH}`,
  };
  const db = join(root, 'sessions.db');
  const imp = cli(['import', 'copilot', '--json', '--db', db], { env });
  expect(imp.code).toBe(0);
  expect(imp.json().turns_added).toBe(1);
  const [session] = cli(['list', '--json', '--db', db], { env }).json();
  const bates = `${session.sid}-000001`;
  return { root, home, work, db, env, log, bates, source: text.split('\n').filter((l) => l !== '') };
}

describe('arborist resume into GitHub Copilot CLI', () => {
  it('--no-exec writes session-state/<id>/events.jsonl: session.start with the new id, then the events as they were', () => {
    const m = copilotMachine();
    const r = cli(['resume', m.bates, '--no-exec', '--json', '--db', m.db], { env: m.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({
      agent: 'copilot',
      cwd: m.work,
      command: ['copilot', '--resume', doc.session_id],
    });
    expect(doc.file).toBe(join(m.home, 'session-state', doc.session_id, 'events.jsonl'));
    expect(statSync(doc.file).mode & 0o777).toBe(0o600);
    const out = readFileSync(doc.file, 'utf8').slice(0, -1).split('\n');
    expect(out).toHaveLength(m.source.length);
    expect(out.slice(1)).toEqual(m.source.slice(1));
    const start = JSON.parse(out[0]);
    const orig = JSON.parse(m.source[0]);
    expect(orig.data.sessionId).toBe(ORIGINAL_SESSION);
    expect(start).toEqual({ ...orig, data: { ...orig.data, sessionId: doc.session_id } });
    expect(resumeEvents(m.db)).toHaveLength(1);
    const again = cli(['import', 'copilot', doc.file, '--json', '--db', m.db], { env: m.env }).json();
    expect(again.turns_added).toBe(0);
  });

  it('runs copilot --resume ID in the turn’s cwd; its new turn comes back under the turn', () => {
    const m = copilotMachine();
    const r = cli(['resume', m.bates, '--json', '--db', m.db], { env: m.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fake copilot: resumed [0-9a-f-]{36}/);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const runs = readFileSync(m.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs).toEqual([{ argv: ['--resume', doc.session_id], cwd: m.work, file: doc.file }]);
    expect(doc.imported.turns_added).toBe(1);
    const added = cli(['show', doc.imported.added[0], '--json', '--db', m.db], { env: m.env }).json();
    expect(added).toMatchObject({
      parent_bates: m.bates,
      question: 'Carry on from here: what would you change next?',
      source: 'copilot',
    });
    expect(added.bates.split('-')[0]).not.toBe(m.bates.split('-')[0]);
    const all = cli(['import', 'copilot', '--json', '--db', m.db], { env: m.env }).json();
    expect(all.turns_added).toBe(0);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
  });
});
