/**
 * A Codex machine in a temp folder for the resume tests: a CODEX_HOME holding the real 0.125 rollout
 * (tests/import/fixtures/codex/SOURCES.md), its cwd moved to a temp folder that exists, imported; a PATH whose
 * `codex` is the fake (fixtures/fake-codex.mjs).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

export const FIXTURE = fileURLToPath(
  new URL(
    '../import/fixtures/codex/home/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl',
    import.meta.url,
  ),
);
const FAKE_CODEX = fileURLToPath(new URL('./fixtures/fake-codex.mjs', import.meta.url));
export const ORIGINAL_CWD = '/Users/Sample_User/repos/codemie-ai/codemie-code';
export const SESSION = '019e1625-789d-76c0-80ab-3724b5ddb799';
export const TURN1 = '019e1625-d031-75e3-a85f-f143e43c0d84';
export const TURN2 = '019e162b-0011-7240-abbc-f7b732e49728';
export const BASE_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

export interface CodexMachine {
  root: string;
  codexHome: string;
  work: string;
  db: string;
  log: string;
  env: Record<string, string>;
  source: string[];
  bates: Record<string, string>;
}

/** A CODEX_HOME holding the 0.125 rollout (its cwd moved to a temp folder that exists), imported. */
export function codexMachine(): CodexMachine {
  const root = tempDir('arb-codex-resume-');
  const codexHome = join(root, 'codex-home');
  const work = join(root, 'work');
  const bin = join(root, 'bin');
  const log = join(root, 'fake-codex.log');
  for (const d of [work, bin, join(root, 'arborist-home')]) mkdirSync(d, { recursive: true });
  const dest = join(codexHome, 'sessions', '2026', '05', '11', basename(FIXTURE));
  mkdirSync(dirname(dest), { recursive: true });
  const text = readFileSync(FIXTURE, 'utf8').replaceAll(ORIGINAL_CWD, work);
  writeFileSync(dest, text);
  const codex = join(bin, 'codex');
  writeFileSync(codex, `#!/bin/sh\nexec '${process.execPath}' '${FAKE_CODEX}' "$@"\n`);
  chmodSync(codex, 0o755);
  const env = {
    HOME: join(root, 'user-home'),
    CODEX_HOME: codexHome,
    ARBORIST_HOME: join(root, 'arborist-home'),
    FAKE_CODEX_LOG: log,
    PATH: `${bin}:${BASE_PATH}`,
    TZ: 'Asia/Kolkata',
  };
  const db = join(root, 'sessions.db');
  const r = cli(['import', 'codex', '--json', '--db', db], { env });
  expect(r.code).toBe(0);
  expect(r.json().turns_added).toBe(2);
  const s = Shard.open(db, { readonly: true });
  const bates = Object.fromEntries(s.turnsBySourceId('codex', [TURN1, TURN2]));
  s.close();
  expect(Object.keys(bates)).toHaveLength(2);
  return { root, codexHome, work, db, log, env, source: text.split('\n').filter((l) => l !== ''), bates };
}

/** The fake's runs so far. */
export function codexRuns(m: CodexMachine): { argv: string[]; cwd: string; file: string | null }[] {
  try {
    return readFileSync(m.log, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}
