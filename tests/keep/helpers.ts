import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, expect } from 'vitest';
import { BIN, cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';

/** A fake home with Claude Code, Codex and OpenClaw histories (real fixtures), and a keeper to run over it. */

const FIXTURES = fileURLToPath(new URL('../import/fixtures/', import.meta.url));

export interface Home {
  home: string;
  db: string;
  log: string;
  env: NodeJS.ProcessEnv;
  claude: string;
  codex: string;
  openclaw: string;
}

/** Every file under `dir` made a day old: quiet, so its turns are taken as they are at the first reading. */
function age(dir: string): void {
  const old = new Date(Date.now() - 86_400_000);
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const p = join(dir, f);
    if (statSync(p).isFile()) utimesSync(p, old, old);
  }
}

export function fakeHome(): Home {
  const home = tempDir('arborist-keep-');
  const claude = join(home, '.claude', 'projects', 'p1');
  mkdirSync(claude, { recursive: true });
  cpSync(join(FIXTURES, 'claude', 'resume'), claude, { recursive: true });
  const codex = join(home, '.codex');
  cpSync(join(FIXTURES, 'codex', 'home'), codex, { recursive: true });
  const openclaw = join(home, '.openclaw');
  cpSync(join(FIXTURES, 'openclaw', 'home'), openclaw, { recursive: true });
  age(home);
  const arb = join(home, '.arborist');
  return {
    home,
    db: join(arb, 'sessions.db'),
    log: join(arb, 'keep.log'),
    env: { PATH: process.env.PATH, HOME: home, ARBORIST_HOME: arb },
    claude,
    codex,
    openclaw,
  };
}

/** `source/source_id` of every turn in the shard, in id order (empty while there is no shard). */
export function turnIds(db: string): string[] {
  if (!existsSync(db)) return [];
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return d.prepare("SELECT source || '/' || source_id FROM nodes ORDER BY id").pluck().all() as string[];
    } finally {
      d.close();
    }
  } catch {
    return [];
  }
}

export function questions(db: string): string[] {
  if (!existsSync(db)) return [];
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return d.prepare('SELECT question FROM nodes ORDER BY id').pluck().all() as string[];
    } finally {
      d.close();
    }
  } catch {
    return [];
  }
}

/** Waits for a condition, polling; fails with `what` past the deadline. */
export async function until(what: string, ok: () => boolean, ms = 15_000): Promise<number> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - t0;
}

export function logText(h: Home): string {
  try {
    return readFileSync(h.log, 'utf8');
  } catch {
    return '';
  }
}

export interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * A keeper over the fake home. Short intervals for tests (docs/keep.md, "Options"): notifications do the work; the
 * poll and the rediscovery are set long unless a test wants them, so that a test of a notification is one.
 */
export function startKeeper(h: Home, args: string[] = [], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(
    process.execPath,
    [BIN, 'keep', '--poll', '1h', '--rescan', '1h', '--settle', '500ms', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...h.env, ...env } },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

/** The keeper is following (its first discovery done: the watches are set). */
export async function ready(h: Home): Promise<void> {
  await until('the keeper follows', () => /following /.test(logText(h)));
}

let clock = 0;

/** A finished Claude Code turn (prompt, reply with end_turn) of session `sid`, as two JSONL lines (`extra`: fields of both). */
export function claudeTurn(
  sid: string,
  id: string,
  parent: string | null,
  question: string,
  extra: Record<string, unknown> = {},
): string {
  const ts = () => new Date(Date.UTC(2026, 5, 1, 9, 0, clock++)).toISOString();
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: '/w',
    sessionId: sid,
    version: '2.1.0',
    ...extra,
  };
  const user = {
    ...base,
    parentUuid: parent,
    type: 'user',
    uuid: `${id}-u`,
    timestamp: ts(),
    message: { role: 'user', content: question },
  };
  const reply = {
    ...base,
    parentUuid: `${id}-u`,
    type: 'assistant',
    uuid: `${id}-a`,
    timestamp: ts(),
    message: {
      id: `m_${id}`,
      type: 'message',
      role: 'assistant',
      model: 'x',
      content: [{ type: 'text', text: `answer to ${question}` }],
      stop_reason: 'end_turn',
    },
  };
  return `${JSON.stringify(user)}\n${JSON.stringify(reply)}\n`;
}

export function appendTurn(file: string, sid: string, id: string, parent: string | null, q: string): void {
  appendFileSync(file, claudeTurn(sid, id, parent, q));
}

export function writeTurn(file: string, sid: string, id: string, q: string): void {
  writeFileSync(file, claudeTurn(sid, id, null, q));
}

export const SID_A = 'aaaa0000-0000-4000-8000-000000000001';
export const FILE_A = `${SID_A}.jsonl`;
export const FILE_B = 'bbbb0000-0000-4000-8000-000000000002.jsonl';

/** What a one-shot `arborist import` of the home holds now, in a shard of its own: what the keeper must hold. */
export function expected(h: Home): string[] {
  const db = tempDb();
  const r = cli(['import', '--db', db], { env: h.env });
  expect(r.code, r.stderr).toBeLessThan(2);
  return turnIds(db).sort();
}

export function same(db: string, want: string[]): boolean {
  const have = turnIds(db).sort();
  return have.length === want.length && have.every((x, i) => x === want[i]);
}

export async function stop(k: Running): Promise<number | null> {
  k.child.kill('SIGTERM');
  return k.exit;
}

/** A keeper started over `h` (startKeeper's `args`) once it holds everything the home holds: its first import done. */
export async function followingAll(h: Home, args: string[] = []): Promise<Running> {
  const k = startKeeper(h, args);
  await ready(h);
  await until('the first import', () => same(h.db, expected(h)));
  return k;
}
