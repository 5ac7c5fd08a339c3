import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Runs a CommonJS bundle with V8's code cache: the bytecode V8 made for it on an earlier start, kept in the user's
 * cache folder, instead of parsing and compiling it again. Why: Node 20 caches no compiled code for files it
 * loads (Node 22's module.enableCompileCache does; 20 has only vm.Script's cachedData), and compiling the browser's
 * bundle is most of its first screen's wait (docs/benchmarks-tui.md: ~50 ms of ~190).
 *
 * The cache is keyed by a hash of the bundle's bytes and Node's version: V8 checks its own version and flags, but of
 * the source only its length, so a rebuilt bundle of the same length would otherwise run the old bytecode. Each
 * file starts with the sha256 of the rest: a release V8 does not verify its cache's checksum, and one flipped byte
 * mid-file aborts the process inside the deserializer (tests/cli/code-cache.test.ts found it). A cache that fails
 * our hash, or that V8 refuses (another V8, other flags), is not used: the bundle is compiled from source and the
 * cache written again. Nothing of this can fail the program: an unreadable or unwritable cache folder only means
 * no cache.
 *
 * The cache is code the program runs, so it lives where only the user writes (XDG_CACHE_HOME, else ~/.cache), as
 * the user's shell start-up files do; never in a shared temporary folder.
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
  // The XDG spec: a relative path is invalid and is ignored.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'arborist');
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  return home ? join(home, '.cache', 'arborist') : undefined;
}

/** What the cache of a bundle is called: its name, and a hash of its bytes with Node's version and the CPU. */
export function cacheFileName(file: string, source: string): string {
  const key = createHash('sha256')
    .update(`${process.version}\0${process.arch}\0`)
    .update(source)
    .digest('hex')
    .slice(0, 32);
  return `${baseName(file)}-${key}.v8cache`;
}

function baseName(file: string): string {
  const name = file.slice(file.lastIndexOf('/') + 1);
  return name.replace(/\.c?js$/, '');
}

/** The sha256 of the cache's V8 data, in front of it. */
const DIGEST = 32;

/** What became of the cache on a run: none kept, one used, a first one to write, or one V8 refused (rewritten). */
export type CacheUse = 'off' | 'used' | 'new' | 'rejected';

/**
 * Compiles `file` (CommonJS) with its cache when there is one that fits, runs it, and writes the cache if needed;
 * returns what it exports. The file must not use import() (Node 20 supports it in a vm.Script only as experimental).
 */
export function runCached(
  file: string,
  opts: CachedRunOptions,
): { exports: Record<string, unknown>; cache: CacheUse } {
  const source = readFileSync(file, 'utf8');
  const cachePath =
    opts.cacheDir === undefined ? undefined : join(opts.cacheDir, cacheFileName(file, source));
  let cachedData: Buffer | undefined;
  let damaged = false;
  if (cachePath !== undefined) {
    try {
      const file = readFileSync(cachePath);
      cachedData = file.subarray(DIGEST);
      damaged =
        file.length <= DIGEST ||
        !createHash('sha256').update(cachedData).digest().equals(file.subarray(0, DIGEST));
      if (damaged) cachedData = undefined;
    } catch {
      // none yet, or unreadable: compile from source
    }
  }
  // The wrapper Node itself puts around a CommonJS file, so the bundle sees the same five names.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const cache: CacheUse =
    cachePath === undefined
      ? 'off'
      : damaged || script.cachedDataRejected === true
        ? 'rejected'
        : cachedData === undefined
          ? 'new'
          : 'used';
  if (cachePath !== undefined && (cache === 'new' || cache === 'rejected')) {
    const timer = setTimeout(() => writeCache(script, cachePath), opts.writeAfterMs ?? 1500);
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

function writeCache(script: Script, cachePath: string): void {
  try {
    const data = script.createCachedData();
    const dir = dirname(cachePath);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written aside and renamed: two programs starting at once never read half a file.
    const tmp = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([createHash('sha256').update(data).digest(), data]), { mode: 0o600 });
    renameSync(tmp, cachePath);
    // The caches of earlier builds of the same bundle are of no more use.
    const prefix = `${cachePath.slice(dir.length + 1).replace(/-[0-9a-f]{32}\.v8cache$/, '')}-`;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(prefix) && name.endsWith('.v8cache') && join(dir, name) !== cachePath)
        rmSync(join(dir, name), { force: true });
    }
  } catch {
    // A cache is only a cache: a full disk or a read-only home leaves the program as it was.
  }
}
