import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArboristError, lastSyncEvent, type Shard } from '../store/index.js';
import { oneLine } from '../text/sanitize.js';
import { git, runGit } from './git.js';
import { HOST_RE } from './layout.js';
import { checkStoredUrl, urlToStore } from './url.js';

/**
 * The local mirror (docs/sync.md, "On this machine"): a bare git repository beside the shard, `<shard>.sync/`, mode
 * 0700 (it holds every pulled conversation). Its remotes are the user's sync remotes; other hosts' branches are
 * fetched into `refs/arborist/<remote>/hosts/*`. The host id lives in it too (`arborist-host`): one folder beside
 * the shard holds everything sync keeps outside the shard, and a mirror deleted is a host id the chain still knows
 * (every sync event records it), so it is taken back from there rather than minted anew.
 */

export function mirrorPath(dbPath: string): string {
  return `${dbPath}.sync`;
}

const HOST_FILE = 'arborist-host';

/**
 * Remote names: what `git remote` accepts without surprises (it refuses a leading '.', a '.lock' end), never an
 * option.
 */
const REMOTE_RE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/**
 * A remote name checked before it is stored or handed to git: `usage` for one typed, `input` for one read from the
 * mirror's config (a hand edit there must not reach git as an option: `--upload-pack=CMD`).
 */
export function checkRemoteName(name: string, kind: 'usage' | 'input' = 'usage'): string {
  if (!REMOTE_RE.test(name) || name.startsWith('-') || name.includes('..') || name.endsWith('.lock'))
    throw new ArboristError(
      kind,
      `remote name '${oneLine(name).slice(0, 64)}' must be 1-64 of A-Z a-z 0-9 . _ -, not start with '-' or '.' nor end with .lock`,
    );
  return name;
}

/** Creates the mirror when it is missing; returns its path. */
export async function ensureMirror(dbPath: string): Promise<string> {
  const dir = mirrorPath(dbPath);
  if (!existsSync(join(dir, 'HEAD'))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    await git(
      null,
      ['-c', 'init.defaultBranch=main', 'init', '--bare', '--quiet', '--', dir],
      'creating the sync mirror',
    );
  }
  chmodSync(dir, 0o700);
  return dir;
}

/** The mirror when it exists (for reading: remote list, checks), else null. */
export function existingMirror(dbPath: string): string | null {
  const dir = mirrorPath(dbPath);
  try {
    return statSync(join(dir, 'HEAD')).isFile() ? dir : null;
  } catch {
    return null;
  }
}

function mintHost(): string {
  const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (const b of randomBytes(12)) s += ALPHABET[b % 36];
  return s;
}

/**
 * This shard's host id: the mirror's file; else the one the chain's newest sync event recorded (the mirror was
 * deleted: a new id would orphan this host's branch and push its sessions a second time); else a new one.
 */
export function hostId(shard: Shard, mirror: string): string {
  const file = join(mirror, HOST_FILE);
  let id: string | undefined;
  try {
    id = readFileSync(file, 'utf8').trim();
  } catch {
    id = undefined;
  }
  if (id !== undefined && HOST_RE.test(id)) return id;
  const fromChain = lastSyncEvent(shard)?.data.host;
  const host = typeof fromChain === 'string' && HOST_RE.test(fromChain) ? fromChain : mintHost();
  writeFileSync(file, `${host}\n`, { mode: 0o600 });
  return host;
}

/** This shard's host id when it has one (mirror file or chain), without minting. */
export function knownHostId(shard: Shard, dbPath: string): string | undefined {
  const mirror = existingMirror(dbPath);
  if (mirror) {
    try {
      const id = readFileSync(join(mirror, HOST_FILE), 'utf8').trim();
      if (HOST_RE.test(id)) return id;
    } catch {
      // fall through to the chain
    }
  }
  const h = lastSyncEvent(shard)?.data.host;
  return typeof h === 'string' && HOST_RE.test(h) ? h : undefined;
}

export interface RemoteInfo {
  name: string;
  url: string;
}

export async function listRemotes(dbPath: string): Promise<RemoteInfo[]> {
  const mirror = existingMirror(dbPath);
  if (!mirror) return [];
  // -z: `key LF value NUL`, so a value holding a line break (a hand edit) is neither split nor dropped.
  const r = await runGit(mirror, ['config', '-z', '--get-regexp', '^remote\\..*\\.url$']);
  if (r.code !== 0) return [];
  const out: RemoteInfo[] = [];
  for (const entry of r.stdout.toString('utf8').split('\0')) {
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    if (key.startsWith('remote.') && key.endsWith('.url'))
      out.push({ name: key.slice('remote.'.length, -'.url'.length), url: nl < 0 ? '' : entry.slice(nl + 1) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The remote sync and `check --remote` are about to hand to git, held to the rules `remote add` applies: the
 * mirror's config may hold one arborist never added. not_found when there is none of that name.
 */
export async function usableRemote(dbPath: string, name: string, notFound: string): Promise<RemoteInfo> {
  const found = (await listRemotes(dbPath)).find((r) => r.name === name);
  if (!found) throw new ArboristError('not_found', notFound);
  try {
    checkRemoteName(name, 'input');
  } catch (err) {
    throw new ArboristError(
      'input',
      `${(err as Error).message} (not one arborist added: \`arborist sync remote remove -- NAME\` takes it away)`,
    );
  }
  checkStoredUrl(name, found.url);
  return found;
}

export async function addRemote(dbPath: string, name: string, url: string): Promise<void> {
  checkRemoteName(name);
  // Checked by form (and a local path's existence), never by contacting the remote: it may be offline.
  const stored = urlToStore(url, process.cwd());
  const mirror = await ensureMirror(dbPath);
  if ((await listRemotes(dbPath)).some((r) => r.name === name))
    throw new ArboristError('input', `remote ${name} already exists`);
  await git(mirror, ['remote', 'add', '--', name, stored], `adding remote ${name}`);
}

/**
 * Removes a remote; one whose name arborist would not have taken (a hand edit of the mirror's config) is removed
 * too when it is there by that exact name: sync refuses it, and this is the way to take it away. After `--`, as
 * every name git is given.
 */
export async function removeRemote(dbPath: string, name: string): Promise<void> {
  const mirror = existingMirror(dbPath);
  const there = mirror !== null && (await listRemotes(dbPath)).some((r) => r.name === name);
  if (!there) {
    checkRemoteName(name);
    throw new ArboristError('not_found', `no sync remote named ${name}`);
  }
  await git(mirror, ['remote', 'remove', '--', name], `removing remote ${name}`);
}

/**
 * A lock so that two syncs of one shard never interleave (their imports would race): a file made with O_EXCL, the
 * pid inside. A sync that finds it held waits (up to `waitMs`); one whose process is gone is stale and taken over.
 */
export async function takeLock(mirror: string, waitMs = 120_000): Promise<() => void> {
  const file = join(mirror, 'arborist-sync.lock');
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let pid = 0;
    try {
      pid = Number(readFileSync(file, 'utf8'));
    } catch {
      continue; // released in between
    }
    let alive = false;
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (!alive) {
      rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > until)
      throw new ArboristError('busy', `another sync of this shard is running (pid ${pid})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
