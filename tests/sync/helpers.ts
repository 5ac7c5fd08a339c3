import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { archiveSessions, restoreArchives, Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { BIN, type CliResult, cli } from '../support/cli.js';
import { tempDir as supportTempDir } from '../support/tmp.js';

/** A host: its own ARBORIST_HOME and shard, as a separate machine would have. */
export interface Host {
  name: string;
  db: string;
  env: NodeJS.ProcessEnv;
}

/** A temporary folder removed after the test (tests/support/tmp.ts), named for what it holds. */
export function tempDir(prefix = 'arb-sync-'): string {
  return supportTempDir(prefix);
}

/** A bare repository in a temp folder: the remote every host syncs with. */
export function bareRemote(): string {
  const dir = join(tempDir('arb-remote-'), 'history.git');
  execFileSync('git', ['init', '--bare', '--quiet', dir]);
  return dir;
}

export function host(name: string, remote?: string): Host {
  const home = tempDir(`arb-host-${name}-`);
  const h: Host = { name, db: join(home, 'sessions.db'), env: { ARBORIST_HOME: home } };
  if (remote !== undefined) expect0(run(h, ['sync', 'remote', 'add', 'origin', remote]));
  return h;
}

export function run(h: Host, args: string[]): CliResult {
  return cli([...args, '--db', h.db], { env: h.env });
}

export function expect0(r: CliResult): CliResult {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}${r.stdout}`);
  return r;
}

/** `arborist ask` with a fixed answer; returns the new turn's JSON. */
// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
export function ask(h: Host, q: string, extra: string[] = []): any {
  return expect0(run(h, ['ask', q, '--answer', `answer to ${q}`, '--json', ...extra])).json();
}

// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
export function sync(h: Host, extra: string[] = []): any {
  return expect0(run(h, ['sync', '--json', ...extra])).json();
}

/** The same sync as a child process, to run several at once. */
export function syncAsync(h: Host): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'sync', '--json', '--db', h.db], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...h.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Every live turn of a shard: Bates id -> node hash, read straight from the file. */
export function turnsOf(h: Host): Map<string, string> {
  const s = Shard.open(h.db, { readonly: true });
  try {
    const rows = dbOf(s).prepare('SELECT bates, hex(node_hash) AS h FROM nodes ORDER BY bates').all() as {
      bates: string;
      h: string;
    }[];
    return new Map(rows.map((r) => [r.bates, r.h.toLowerCase()]));
  } finally {
    s.close();
  }
}

/** The chain head and counts, to say a shard did not change. */
export function stateOf(h: Host): string {
  const s = Shard.open(h.db, { readonly: true });
  try {
    const n = dbOf(s)
      .prepare("SELECT (SELECT count(*) FROM nodes) || '/' || (SELECT count(*) FROM sessions)")
      .pluck()
      .get();
    return `${s.chainHead()} ${n}`;
  } finally {
    s.close();
  }
}

export function clean(h: Host): void {
  expect0(run(h, ['check']));
}

export function hostIdOf(h: Host): string {
  return readFileSync(`${h.db}.sync/arborist-host`, 'utf8').trim();
}

/** A clone of one host's branch to tamper with, as someone with write access to the remote could. */
export function tamper(
  remote: string,
  hostId: string,
  edit: (dir: string) => void,
  opts: { force?: boolean } = {},
): void {
  const dir = join(tempDir('arb-tamper-'), 'w');
  const g = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  execFileSync('git', ['clone', '--quiet', '--branch', `hosts/${hostId}`, remote, dir], { stdio: 'pipe' });
  g('config', 'user.email', 'x@example.com');
  g('config', 'user.name', 'x');
  edit(dir);
  g('add', '-A');
  if (opts.force) g('commit', '--quiet', '--amend', '--no-edit');
  else g('commit', '--quiet', '-m', 'tampered');
  g('push', '--quiet', ...(opts.force ? ['--force'] : []), 'origin', `HEAD:refs/heads/hosts/${hostId}`);
}

export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

/** A session of `h` to the archive tier, or back, through the store as maintain and the browser do. */
export function archive(h: Host, sid: string, back = false): void {
  const s = Shard.open(h.db);
  try {
    if (back) restoreArchives(s, [sid]);
    else archiveSessions(s, [sid]);
  } finally {
    s.close();
  }
}

export { readFileSync, writeFileSync };

/** A shard that made a session (`questions` asked into it) and its JSON export: what copies are made from. */
// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON
export function exportedSession(questions: string[] = ['q one']): { maker: Host; first: any; doc: string } {
  const maker = host('maker');
  const first = ask(maker, questions[0]);
  for (const q of questions.slice(1)) ask(maker, q, ['--session', first.sid]);
  const doc = join(tempDir('arb-doc-'), 'export.json');
  expect0(run(maker, ['export', first.sid, '--format', 'json', '--out', doc]));
  return { maker, first, doc };
}
