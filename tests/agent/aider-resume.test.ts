/**
 * `arborist resume` into aider: a new history file in the project holding exactly the path's lines (the original
 * file's first lines, byte for byte, when the path is its first sessions), `aider --chat-history-file F
 * --restore-chat-history` run without a shell in the project (a fake `aider` on PATH: fixtures/fake-aider.mjs),
 * and the restored session's turn coming back under the turn. A real history (tests/import/fixtures/aider/SOURCES.md).
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { resumeEvents } from './helpers.js';

const HISTORY = fileURLToPath(
  new URL('../import/fixtures/aider/simple_test_project/custom_aider_history.md', import.meta.url),
);
const FAKE = fileURLToPath(new URL('./fixtures/fake-aider.mjs', import.meta.url));
const BASE_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

function aiderMachine() {
  const root = tempDir('arb-aider-resume-');
  const project = join(root, 'project');
  const bin = join(root, 'bin');
  for (const d of [project, bin, join(root, 'arborist-home')]) mkdirSync(d, { recursive: true });
  const original = join(project, '.aider.chat.history.md');
  copyFileSync(HISTORY, original);
  writeFileSync(join(bin, 'aider'), `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' "$@"\n`);
  chmodSync(join(bin, 'aider'), 0o755);
  const log = join(root, 'fake-aider.log');
  const env = {
    HOME: join(root, 'user-home'),
    ARBORIST_HOME: join(root, 'arborist-home'),
    FAKE_AIDER_LOG: log,
    PATH: `${bin}:${BASE_PATH}`,
  };
  const db = join(root, 'sessions.db');
  const imp = cli(['import', 'aider', original, '--json', '--db', db], { env });
  expect(imp.code).toBe(0);
  expect(imp.json().turns_added).toBe(6);
  // Six sessions of one prompt each, each restoring the one before: the third turn's path is the first three.
  const list = cli(['list', '--json', '--db', db], { env }).json() as { sid: string; created_at: string }[];
  const bySid = list.map((s) => s.sid);
  const show = (b: string) => cli(['show', b, '--json', '--db', db], { env }).json();
  let third = '';
  for (const sid of bySid) {
    const t = show(`${sid}-000001`);
    if (t.created_at === '2025-03-18T10:29:55.000Z') third = t.bates;
  }
  expect(third).not.toBe('');
  return { root, project, original, db, env, log, third, show };
}

describe('arborist resume into aider', () => {
  it('--no-exec writes the path’s lines as a new history in the project; importing it adds nothing', () => {
    const m = aiderMachine();
    const r = cli(['resume', m.third, '--no-exec', '--json', '--db', m.db], { env: m.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({
      agent: 'aider',
      cwd: m.project,
      command: ['aider', '--chat-history-file', doc.file, '--restore-chat-history'],
    });
    expect(doc.file).toBe(join(m.project, `.aider.chat.history.resume-${doc.session_id}.md`));
    expect(doc.turns).toHaveLength(3);
    expect(statSync(doc.file).mode & 0o777).toBe(0o600);
    // the first three sessions of the original, byte for byte: everything before the fourth header's blank line
    const original = readFileSync(m.original, 'utf8');
    const fourth = original.indexOf('\n\n# aider chat started at 2025-03-18 10:30:19');
    expect(readFileSync(doc.file, 'utf8')).toBe(original.slice(0, fourth + 1));
    const again = cli(['import', 'aider', doc.file, '--json', '--db', m.db], { env: m.env }).json();
    expect(again).toMatchObject({ turns_added: 0, turns_skipped: 3 });
    expect(resumeEvents(m.db)).toHaveLength(1);
  });

  it('runs aider with the written history in the project; the restored session’s turn comes back under the turn', () => {
    const m = aiderMachine();
    const r = cli(['resume', m.third, '--json', '--db', m.db], { env: m.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fake aider: restored /);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const runs = readFileSync(m.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs).toEqual([
      { argv: ['--chat-history-file', doc.file, '--restore-chat-history'], cwd: m.project, file: doc.file },
    ]);
    expect(doc.imported.turns_added).toBe(1);
    expect(m.show(doc.imported.added[0])).toMatchObject({
      parent_bates: m.third,
      question: 'Carry on from here: what would you change next?',
      source: 'aider',
    });
    expect(m.show(m.third).n_children).toBe(2); // the original's fourth session, and this one
    const all = cli(['import', 'aider', m.project, doc.file, '--json', '--db', m.db], { env: m.env }).json();
    expect(all.turns_added).toBe(0);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
  });
});
