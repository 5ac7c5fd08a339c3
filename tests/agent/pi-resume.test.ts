/**
 * `arborist resume` into Pi: a branch file written beside the original (a version 3 header with a new id, the cwd
 * and `parentSession`, then the path's entries byte for byte: a rewound sibling's entries left out), `pi --session
 * <file>` run without a shell in the cwd (a fake `pi` on PATH: fixtures/fake-pi.mjs), and its new turn coming back
 * under the turn. The hand-written version 3 files of tests/import/fixtures/pi (SOURCES.md), in a temp agent folder.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { resumeEvents } from './helpers.js';

const SHOP = fileURLToPath(
  new URL('../import/fixtures/pi/agent/sessions/--home-ana-shop--/', import.meta.url),
);
const FAKE = fileURLToPath(new URL('./fixtures/fake-pi.mjs', import.meta.url));
const ORIGINAL = '5b0c7e2a-91d4-4f6e-8a3b-2c7d9e1f4a60';
const BASE_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

function piMachine() {
  const root = tempDir('arb-pi-resume-');
  const agent = join(root, 'pi-agent');
  const folder = join(agent, 'sessions', '--home-ana-shop--');
  const work = join(root, 'work');
  const bin = join(root, 'bin');
  for (const d of [work, bin, folder, join(root, 'arborist-home')]) mkdirSync(d, { recursive: true });
  for (const name of readdirSync(SHOP)) {
    const text = readFileSync(join(SHOP, name), 'utf8')
      .replaceAll('/home/ana/.pi/agent', agent)
      .replaceAll('/home/ana/shop', work);
    writeFileSync(join(folder, name), text);
  }
  writeFileSync(join(bin, 'pi'), `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' "$@"\n`);
  chmodSync(join(bin, 'pi'), 0o755);
  const log = join(root, 'fake-pi.log');
  const env = {
    HOME: join(root, 'user-home'),
    PI_CODING_AGENT_DIR: agent,
    ARBORIST_HOME: join(root, 'arborist-home'),
    FAKE_PI_LOG: log,
    PATH: `${bin}:${BASE_PATH}`,
  };
  const db = join(root, 'sessions.db');
  const imp = cli(['import', 'pi', '--json', '--db', db], { env });
  expect(imp.code).toBe(0);
  expect(imp.json().turns_added).toBe(5);
  const s = Shard.open(db, { readonly: true });
  const bates = Object.fromEntries(
    s.turnsBySourceId('pi', [`${ORIGINAL}/4c8f1a77`, `${ORIGINAL}/95c4e0a2`, `${ORIGINAL}/3d90b6f1`]),
  );
  s.close();
  const original = join(folder, readdirSync(folder).find((n) => n.endsWith(`_${ORIGINAL}.jsonl`))!);
  return { root, agent, folder, work, db, env, log, bates, original };
}

describe('arborist resume into Pi', () => {
  it('--no-exec writes a branch beside the original: header, then the path’s entries (not the rewound sibling’s)', () => {
    const m = piMachine();
    const turn = m.bates[`${ORIGINAL}/3d90b6f1`];
    const r = cli(['resume', turn, '--no-exec', '--json', '--db', m.db], { env: m.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ agent: 'pi', cwd: m.work, command: ['pi', '--session', doc.file] });
    expect(dirname(doc.file)).toBe(m.folder);
    expect(doc.file).toMatch(
      new RegExp(`/\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_${doc.session_id}\\.jsonl$`),
    );
    expect(statSync(doc.file).mode & 0o777).toBe(0o600);
    const out = readFileSync(doc.file, 'utf8').slice(0, -1).split('\n');
    const src = readFileSync(m.original, 'utf8').slice(0, -1).split('\n');
    // the original's lines 2-8 (turn 1 and its session_info) and 13-16 (the second branch), not 9-12 (the first)
    expect(out.slice(1)).toEqual([...src.slice(1, 8), ...src.slice(12, 16)]);
    expect(JSON.parse(out[0])).toEqual({
      type: 'session',
      version: 3,
      id: doc.session_id,
      timestamp: JSON.parse(out[0]).timestamp,
      cwd: m.work,
      parentSession: m.original,
    });
    expect(doc.left_out).toBe(1);
    const again = cli(['import', 'pi', doc.file, '--json', '--db', m.db], { env: m.env }).json();
    expect(again.turns_added).toBe(0);
    expect(resumeEvents(m.db)).toHaveLength(1);
  });

  it('runs pi --session FILE in the cwd; its new turn comes back under the turn', () => {
    const m = piMachine();
    const turn = m.bates[`${ORIGINAL}/3d90b6f1`];
    const r = cli(['resume', turn, '--json', '--db', m.db], { env: m.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fake pi: resumed [0-9a-f-]{36}/);
    const doc = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const runs = readFileSync(m.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs).toEqual([{ argv: ['--session', doc.file], cwd: m.work, file: doc.file }]);
    expect(doc.imported.turns_added).toBe(1);
    const show = (b: string) => cli(['show', b, '--json', '--db', m.db], { env: m.env }).json();
    expect(show(doc.imported.added[0])).toMatchObject({
      parent_bates: turn,
      question: 'Carry on from here: what would you change next?',
      source: 'pi',
    });
    const all = cli(['import', 'pi', '--json', '--db', m.db], { env: m.env }).json();
    expect(all.turns_added).toBe(0);
    expect(cli(['verify', '--db', m.db], { env: m.env }).code).toBe(0);
  });

  it('the original file gone: refused in one line (the branch would import as new turns), nothing written', () => {
    const m = piMachine();
    rmSync(m.original);
    const r = cli(['resume', m.bates[`${ORIGINAL}/95c4e0a2`], '--db', m.db], { env: m.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /the Pi session file of .* is no longer in .*: pi's branch of it would import as new turns/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(resumeEvents(m.db)).toEqual([]);
    expect(readdirSync(m.folder)).toHaveLength(1);
  });
});
