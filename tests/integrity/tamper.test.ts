import { mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tamper } from '../support/attacker.js';
import { cli } from '../support/cli.js';
import { CASES } from './cases.js';
import { buildFixture, copy, type Fixture } from './fixture.js';

/**
 * The tampering matrix: each edit an attacker with sqlite3 could make, most of them made consistently (every hash
 * and counter recomputed by the documented rules, tests/support/attacker.ts). Each must be detected by
 * `arborist check --expect-head <the head from before>`, exit 1, with the damaged id named; the edits that do not
 * touch the chain must also be caught by `verify` alone (it replays the chain's claims against the state), and
 * the ones that do, by `chain-check` alone.
 */
let dir: string;
let f: Fixture;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arb-matrix-'));
  f = buildFixture(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runCheck(path: string, args: string[]) {
  const r = cli([...args, '--db', path, '--json']);
  // Whatever the damage: exit 0/1/2, at most one line on stderr, never an internal error.
  expect([0, 1, 2]).toContain(r.code);
  expect(r.stderr.trim().split('\n').filter(Boolean).length).toBeLessThanOrEqual(1);
  expect(r.stderr).not.toMatch(/internal error/i);
  return r;
}

describe('tampering matrix', () => {
  it('the untouched fixture passes every check', () => {
    const path = copy(f);
    for (const args of [['verify'], ['chain-check'], ['check', '--expect-head', f.head]]) {
      const r = runCheck(path, args);
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.json().ok).toBe(true);
    }
  });

  it("the attacker's rehash of an untouched shard leaves it passing every check (so its edits are consistent)", () => {
    const path = copy(f);
    tamper(path, () => {});
    const r = runCheck(path, ['check', '--expect-head', f.head]);
    expect(r.code, r.stdout).toBe(0);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const path = copy(f);
    tamper(path, (db) => c.edit(db, f), { rehash: c.rehash ?? true });
    const all = runCheck(path, ['check', '--expect-head', f.head]);
    expect(all.code, all.stdout + all.stderr).toBe(1);
    const doc = all.json();
    expect(doc.ok).toBe(false);
    for (const id of c.names(f)) expect(all.stdout).toContain(id);
    if (c.by === 'verify') {
      const v = runCheck(path, ['verify']);
      expect(v.code, v.stdout + v.stderr).toBe(1);
      for (const id of c.names(f)) expect(v.stdout).toContain(id);
    }
    if (c.by === 'chain') {
      const v = runCheck(path, ['chain-check']);
      expect(v.code, v.stdout + v.stderr).toBe(1);
      expect(v.json().ok).toBe(false);
    }
    if (c.by === 'head') {
      // The chain is internally intact: only the head printed before (kept elsewhere) tells.
      const v = runCheck(path, ['chain-check', '--expect-head', f.head]);
      expect(v.code, v.stdout + v.stderr).toBe(1);
    }
  });

  it('a populated shard truncated to 0 bytes is damage, not a fresh shard', () => {
    const path = copy(f);
    truncateSync(path, 0);
    for (const args of [['verify'], ['chain-check'], ['check']]) {
      const r = runCheck(path, args);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.json().ok).toBe(false);
    }
    for (const args of [['list'], ['find', 'lifetime'], ['new']]) {
      const r = runCheck(path, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/empty/);
    }
  });
});
