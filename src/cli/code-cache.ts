import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Runs a CommonJS bundle with V8's code cache: the bytecode V8 made for it on an earlier start, kept in the user's
 * cache folder, instead of parsing and compiling it again. Why: Node 20 caches no compiled code for files it
 * loads (Node 22's module.enableCompileCache does; 20 has only vm.Script's cachedData), and compiling the browser's
 * bundle is most of its first screen's wait (docs/benchmarks-tui.md: ~60 ms of ~230).
 *
 * - The file name is keyed by a hash of the bundle's bytes, Node's version, the CPU and the flags Node runs with:
 *   V8 checks its own version and flags, but of the source only its length, so a rebuilt bundle of the same length
 *   would otherwise run the old bytecode; and a cache V8 refuses for other flags is not thrown away by the next start
 *   with the flags it was made for.
 * - Each file starts with the sha256 of the rest: a release V8 does not verify its cache's checksum, and one flipped
 *   byte mid-file aborts the process inside the deserializer (tests/cli/code-cache.test.ts found it).
 * - The cache is code the program runs: a cache folder or file that anyone but the user owns, or that the group or
 *   others may write, is not used (as ssh treats ~/.ssh), so that another account cannot plant bytecode for it.
 *   That is why it lives under XDG_CACHE_HOME or ~/.cache, never in a shared temporary folder.
 * - A cache that fails any of this, or that V8 refuses, is not used: the bundle is compiled from source and the
 *   cache written again. Nothing here can fail the program: an unreadable, unwritable or full cache folder only
 *   means no cache, and leaves no partial file behind.
 */
export interface CachedRunOptions {
  /** Folder for the cache files; undefined: no cache (the bundle is compiled from source). */
  cacheDir: string | undefined;
  /** Milliseconds after start to write a new cache: by then the first screen's functions are compiled too. */
  writeAfterMs?: number;
}

/** Where the caches go: $XDG_CACHE_HOME/arborist, else ~/.cache/arborist; ARBORIST_CODE_CACHE=off: none. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ARBORIST_CODE_CACHE === 'off') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec: a relative path is invalid and is ignored. A relative HOME is no home either.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'arborist');
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  return home && isAbsolute(home) ? join(home, '.cache', 'arborist') : undefined;
}

/**
 * What the cache of a bundle is called: its name, then a hash of its bytes with Node's version, the CPU and the
 * flags Node runs with (its command line's and NODE_OPTIONS), all of which decide whether V8 can use it.
 */
export function cacheFileName(file: string, source: string): string {
  const key = createHash('sha256')
    .update(
      `${process.version}\0${process.arch}\0${nodeFlags().join('\0')}\0${process.env.NODE_OPTIONS ?? ''}\0`,
    )
    .update(source)
    .digest('hex')
    .slice(0, 32);
  return `${baseName(file)}-${key}.v8cache`;
}

/** Node's own options on its command line, without what `-e`/`-p` run (code, not a flag) and the input type. */
function nodeFlags(): string[] {
  return process.execArgv.filter(
    (a) => a.startsWith('--') && a !== '--eval' && a !== '--print' && !a.startsWith('--input-type'),
  );
}

/** The bundle's name in its caches' names: its file name without .js or .cjs. */
function baseName(file: string): string {
  return basename(file).replace(/\.c?js$/, '');
}

/** The sha256 of the cache's V8 data, in front of it. */
const DIGEST = 32;
/** How many caches of one bundle a folder keeps: other installs, Node versions and flags each have their own. */
export const KEEP = 4;

/** What became of the cache on a run: none kept, one V8 used, a first one to write, or one refused (rewritten). */
export type CacheUse = 'off' | 'used' | 'new' | 'rejected';

/** True when only this user may have written `st` (owner, and no write bits for the group or others). */
function ownedAlone(st: { uid: number; mode: number }): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}

/** The cache file's V8 data, if it is there, only the user's, and whole; else why not. */
function readCache(cachePath: string): { data?: Buffer; damaged: boolean } {
  let fd: number;
  try {
    fd = openSync(cachePath, 'r');
  } catch {
    return { damaged: false };
  }
  try {
    if (!ownedAlone(fstatSync(fd))) return { damaged: true };
    const file = readFileSync(fd);
    const data = file.subarray(DIGEST);
    const whole =
      file.length > DIGEST && createHash('sha256').update(data).digest().equals(file.subarray(0, DIGEST));
    return whole ? { data, damaged: false } : { damaged: true };
  } catch {
    return { damaged: true };
  } finally {
    closeSync(fd);
  }
}

/** The cache folder if it exists and only the user may write it (made, 0700, when missing); else undefined. */
function usableDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return ownedAlone(statSync(dir)) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compiles `file` (CommonJS) with its cache when there is one that fits, runs it, and writes the cache if needed;
 * returns what it exports. The file must not use import() (Node 20 supports it in a vm.Script only as experimental).
 */
export function runCached(
  file: string,
  opts: CachedRunOptions,
): { exports: Record<string, unknown>; cache: CacheUse } {
  const source = readFileSync(file, 'utf8');
  const dir = opts.cacheDir === undefined ? undefined : usableDir(opts.cacheDir);
  const cachePath = dir === undefined ? undefined : join(dir, cacheFileName(file, source));
  const { data: cachedData, damaged } = cachePath === undefined ? { damaged: false } : readCache(cachePath);
  // The wrapper Node itself puts around a CommonJS file, so the bundle sees the same five names.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  // 'used' only on V8's own word (cachedDataRejected is false only when it took the data it was given).
  const cache: CacheUse =
    cachePath === undefined
      ? 'off'
      : cachedData === undefined
        ? damaged
          ? 'rejected'
          : 'new'
        : script.cachedDataRejected === false
          ? 'used'
          : 'rejected';
  if (cachePath !== undefined && cache !== 'used') {
    const timer = setTimeout(() => writeCache(script, cachePath, baseName(file)), opts.writeAfterMs ?? 1500);
    // A program that ends before then writes no cache, and is not kept alive for it.
    timer.unref();
  }
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeRequire,
    module: { exports: Record<string, unknown> },
    filename: string,
    dirname: string,
  ) => void;
  const module: { exports: Record<string, unknown> } = { exports: {} };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, cache };
}

function writeCache(script: Script, cachePath: string, base: string): void {
  const dir = dirname(cachePath);
  const tmp = `${cachePath}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    // Written aside and renamed: two programs starting at once never read half a file.
    writeFileSync(tmp, Buffer.concat([createHash('sha256').update(data).digest(), data]), { mode: 0o600 });
    renameSync(tmp, cachePath);
  } catch {
    // A cache is only a cache: a full disk or a read-only home leaves the program as it was, and no partial file.
    rmSync(tmp, { force: true });
    return;
  }
  try {
    pruneCaches(dir, cachePath, base);
  } catch {
    // the folder could not be listed: the caches stay as they are
  }
}

/**
 * Keeps the KEEP newest caches of the bundle just written (by name), and removes the temporary files of writes that
 * were killed midway (older than a minute): earlier builds' caches would otherwise pile up.
 */
function pruneCaches(dir: string, written: string, base: string): void {
  const caches: { path: string; at: number }[] = [];
  for (const entry of readdirSync(dir)) {
    const kind = cacheEntry(entry, base);
    if (kind === null) continue;
    const path = join(dir, entry);
    const at = statSync(path).mtimeMs;
    if (kind === 'tmp') {
      if (Date.now() - at > 60_000) rmSync(path, { force: true });
    } else if (path !== written) caches.push({ path, at });
  }
  caches.sort((a, b) => b.at - a.at);
  for (const old of caches.slice(KEEP - 1)) rmSync(old.path, { force: true });
}

/** Whether `entry` is a cache of the bundle named `base`, a temporary file of one being written, or neither. */
function cacheEntry(entry: string, base: string): 'cache' | 'tmp' | null {
  if (!entry.startsWith(`${base}-`)) return null;
  const rest = entry.slice(base.length + 1);
  if (/^[0-9a-f]{32}\.v8cache$/.test(rest)) return 'cache';
  return /^[0-9a-f]{32}\.v8cache\.\d+\.tmp$/.test(rest) ? 'tmp' : null;
}
