import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeCacheDir, KEEP } from '../../src/cli/code-cache.js';
import { tempDir } from '../support/tmp.js';
import { demoShard, start } from '../tui/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The compiled module (npm test builds first): each run is a process of its own, as each start of arborist is.
const MODULE = join(ROOT, 'dist/src/cli/code-cache.js');

/** Runs `file` through runCached in a new process; what it exported as `v`, and what became of the cache. */
function runIn(
  file: string,
  cacheDir: string | undefined,
  nodeArgs: string[] = [],
): { cache: string; v: unknown } {
  const script = `
    import { runCached } from ${JSON.stringify(MODULE)};
    const r = runCached(${JSON.stringify(file)}, { cacheDir: ${JSON.stringify(cacheDir)}, writeAfterMs: 0 });
    // The cache is written by an unref'd timer: stay long enough for it, as the browser does.
    setTimeout(() => console.log(JSON.stringify({ cache: r.cache, v: r.exports.v })), 50);
  `;
  return JSON.parse(node([...nodeArgs, '--input-type=module', '-e', script]));
}

/** A node process with a clean environment (no NODE_OPTIONS: they are part of the cache's key); its stdout. */
function node(
  args: string[],
  env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME },
): string {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000, env });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** The cache's file name for `file` as a start of arborist (no Node flags) computes it. */
function nameIn(file: string): string {
  const script = `import { cacheFileName } from ${JSON.stringify(MODULE)};
    import { readFileSync } from 'node:fs';
    const f = ${JSON.stringify(file)};
    console.log(cacheFileName(f, readFileSync(f, 'utf8')));`;
  return node(['--input-type=module', '-e', script]).trim();
}

/** A CommonJS file big enough that V8 has something to cache, exporting `v`. */
function bundle(dir: string, v: number): string {
  const file = join(dir, 'b.cjs');
  const fns = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i % 7}; }`).join(
    '\n',
  );
  writeFileSync(file, `${fns}\nmodule.exports.v = f1(${v}) - 1 + __filename.length * 0;\n`);
  return file;
}

const caches = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.v8cache'));

describe("the browser bundle's code cache", () => {
  it('writes a cache on the first run and uses it on the next, with the same result', () => {
    const dir = tempDir('arb-cc-');
    const cacheDir = join(dir, 'cache');
    const file = bundle(dir, 5);
    expect(runIn(file, cacheDir)).toEqual({ cache: 'new', v: 5 });
    expect(caches(cacheDir)).toEqual([nameIn(file)]);
    expect(runIn(file, cacheDir)).toEqual({ cache: 'used', v: 5 });
    // Only the user may write (and so plant code in) the cache.
    expect(statSync(cacheDir).mode & 0o077).toBe(0);
    expect(statSync(join(cacheDir, caches(cacheDir)[0])).mode & 0o077).toBe(0);
  });

  it('never runs the cache of an earlier build, even one of the same length', () => {
    const dir = tempDir('arb-cc-');
    const cacheDir = join(dir, 'cache');
    const file = bundle(dir, 5);
    const before = readFileSync(file, 'utf8');
    const beforeName = nameIn(file);
    expect(runIn(file, cacheDir).v).toBe(5);
    // V8 checks only the source's length: a key without the bytes' hash would run 5's bytecode here.
    const after = bundle(dir, 6);
    expect(readFileSync(after, 'utf8').length).toBe(before.length);
    expect(runIn(after, cacheDir)).toEqual({ cache: 'new', v: 6 });
    // ... from a file of its own, beside the earlier build's (KEEP of them stay).
    expect(caches(cacheDir).sort()).toEqual([beforeName, nameIn(after)].sort());
    expect(runIn(after, cacheDir)).toEqual({ cache: 'used', v: 6 });
  });

  it('a corrupt or truncated cache is refused, the bundle runs from source and the cache is written again', () => {
    const dir = tempDir('arb-cc-');
    const cacheDir = join(dir, 'cache');
    const file = bundle(dir, 7);
    runIn(file, cacheDir);
    const path = join(cacheDir, caches(cacheDir)[0]);
    const good = readFileSync(path);
    for (const bad of [
      Buffer.from('not a cache at all'),
      good.subarray(0, good.length >> 1),
      Buffer.alloc(0),
    ]) {
      writeFileSync(path, bad);
      expect(runIn(file, cacheDir)).toEqual({ cache: 'rejected', v: 7 });
      expect(readFileSync(path).length).toBeGreaterThan(bad.length);
      expect(runIn(file, cacheDir)).toEqual({ cache: 'used', v: 7 });
    }
    // One flipped byte mid-file, which a release V8 does not notice (it aborts the process deserializing it):
    // the sha256 in front of the data refuses it. So does a flipped byte of that hash.
    for (const at of [(n: number) => n >> 1, () => 3]) {
      const flipped = Buffer.from(readFileSync(path));
      flipped[at(flipped.length)] ^= 0xff;
      writeFileSync(path, flipped);
      expect(runIn(file, cacheDir)).toEqual({ cache: 'rejected', v: 7 });
      expect(runIn(file, cacheDir)).toEqual({ cache: 'used', v: 7 });
    }
  });

  it('a cache folder that cannot be made or written costs only the cache, and leaves no partial file', () => {
    const dir = tempDir('arb-cc-');
    const file = bundle(dir, 3);
    // A file where the folder would go.
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'x');
    expect(runIn(file, blocked)).toEqual({ cache: 'off', v: 3 });
    expect(runIn(file, undefined)).toEqual({ cache: 'off', v: 3 });
    // A folder where the cache file would go: the write fails at the rename, and its temporary file is removed.
    const cacheDir = join(dir, 'cache');
    const name = nameIn(file);
    mkdirSync(join(cacheDir, name), { recursive: true });
    expect(runIn(file, cacheDir)).toEqual({ cache: 'rejected', v: 3 });
    expect(readdirSync(cacheDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // A write killed midway leaves a temporary file: the next write removes it once it is a minute old.
    rmSync(join(cacheDir, name), { recursive: true });
    const stale = join(cacheDir, `${name}.99999.tmp`);
    writeFileSync(stale, 'half');
    utimesSync(stale, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    expect(runIn(file, cacheDir)).toEqual({ cache: 'new', v: 3 });
    expect(existsSync(stale)).toBe(false);
    expect(caches(cacheDir)).toEqual([name]);
  });

  it('is not used from a folder or file that others may write', () => {
    const dir = tempDir('arb-cc-');
    const file = bundle(dir, 4);
    const cacheDir = join(dir, 'cache');
    expect(runIn(file, cacheDir)).toEqual({ cache: 'new', v: 4 });
    const path = join(cacheDir, caches(cacheDir)[0]);
    const before = readFileSync(path);
    // A folder the group or others may write: another account could have put the file there.
    for (const mode of [0o777, 0o720, 0o702]) {
      chmodSync(cacheDir, mode);
      expect(runIn(file, cacheDir)).toEqual({ cache: 'off', v: 4 });
      expect(readFileSync(path).equals(before)).toBe(true);
    }
    chmodSync(cacheDir, 0o700);
    // A file others may write: not used, and replaced by one of the user's own.
    chmodSync(path, 0o666);
    expect(runIn(file, cacheDir)).toEqual({ cache: 'rejected', v: 4 });
    expect(statSync(path).mode & 0o077).toBe(0);
    expect(runIn(file, cacheDir)).toEqual({ cache: 'used', v: 4 });
  });

  it.skipIf(process.getuid?.() !== 0)('(as root) a folder or file another account owns is not used', () => {
    const dir = tempDir('arb-cc-');
    const file = bundle(dir, 8);
    const cacheDir = join(dir, 'cache');
    expect(runIn(file, cacheDir)).toEqual({ cache: 'new', v: 8 });
    const path = join(cacheDir, caches(cacheDir)[0]);
    chownSync(path, 65534, 65534);
    expect(runIn(file, cacheDir)).toEqual({ cache: 'rejected', v: 8 });
    expect(statSync(path).uid).toBe(0);
    chownSync(cacheDir, 65534, 65534);
    expect(runIn(file, cacheDir)).toEqual({ cache: 'off', v: 8 });
  });

  it('runs with other Node flags from a cache of their own, and keeps a few caches of a bundle', () => {
    const dir = tempDir('arb-cc-');
    const cacheDir = join(dir, 'cache');
    const file = bundle(dir, 2);
    const flags = ['--stack-size=2000'];
    expect(runIn(file, cacheDir)).toEqual({ cache: 'new', v: 2 });
    expect(runIn(file, cacheDir, flags)).toEqual({ cache: 'new', v: 2 });
    // Alternating starts each find their own (V8 refuses a cache made with other flags).
    expect(runIn(file, cacheDir)).toEqual({ cache: 'used', v: 2 });
    expect(runIn(file, cacheDir, flags)).toEqual({ cache: 'used', v: 2 });
    expect(caches(cacheDir)).toHaveLength(2);
    // Builds come and go (other installs, Node versions): the newest KEEP stay, the older go.
    const last = KEEP + 12;
    for (let v = 10; v <= last; v++) expect(runIn(bundle(dir, v), cacheDir).v).toBe(v);
    expect(caches(cacheDir)).toHaveLength(KEEP);
    expect(caches(cacheDir)).toContain(nameIn(file));
    // Another bundle's caches are not this one's to remove.
    const other = join(dir, 'other.cjs');
    writeFileSync(other, 'module.exports.v = 1;\n');
    expect(runIn(other, cacheDir).v).toBe(1);
    expect(caches(cacheDir)).toHaveLength(KEEP + 1);
  });

  it('lives in XDG_CACHE_HOME (an absolute one), else ~/.cache; ARBORIST_CODE_CACHE=off turns it off', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/c' })).toBe('/x/c/arborist');
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/arborist$/);
    expect(codeCacheDir({})).toMatch(/\/\.cache\/arborist$/);
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/c', ARBORIST_CODE_CACHE: 'off' })).toBeUndefined();
    // A relative HOME is no home (it would put the cache in whatever folder the program runs in).
    const script = `import { codeCacheDir } from ${JSON.stringify(MODULE)}; console.log(String(codeCacheDir({})));`;
    expect(node(['--input-type=module', '-e', script], { PATH: process.env.PATH, HOME: 'rel' }).trim()).toBe(
      'undefined',
    );
  });

  it('the browser writes its cache on its first start and starts from it on the next', async () => {
    const cacheHome = tempDir('arb-cc-home-');
    const cacheDir = join(cacheHome, 'arborist');
    const d = demoShard();
    const env = { XDG_CACHE_HOME: cacheHome };
    const first = await start({ db: d.db, cols: 100, rows: 30, env });
    await first.waitFor('sessions ');
    // Written a moment after the first screen, once its functions are compiled.
    const deadline = Date.now() + 15_000;
    while (!existsSync(cacheDir) || caches(cacheDir).length === 0) {
      if (Date.now() > deadline) throw new Error('no code cache was written');
      await new Promise((r) => setTimeout(r, 100));
    }
    await first.quit();
    const [name] = caches(cacheDir);
    expect(name).toMatch(/^tui-body-[0-9a-f]{32}\.v8cache$/);
    const written = statSync(join(cacheDir, name)).mtimeMs;

    const second = await start({ db: d.db, cols: 100, rows: 30, env });
    await second.waitFor('sessions ');
    second.press('down');
    await second.waitFor(/▸|▾/);
    // Past the moment a refused cache would be written again: it was used as it was.
    await new Promise((r) => setTimeout(r, 2_500));
    await second.quit();
    expect(caches(cacheDir)).toEqual([name]);
    expect(statSync(join(cacheDir, name)).mtimeMs).toBe(written);
  });

  it('the browser still starts when its cache is garbage', async () => {
    const cacheHome = tempDir('arb-cc-home-');
    const cacheDir = join(cacheHome, 'arborist');
    mkdirSync(cacheDir, { recursive: true });
    const path = join(cacheDir, nameIn(join(ROOT, 'dist/bundle/tui-body.cjs')));
    writeFileSync(path, Buffer.alloc(4096, 0x5a));
    const d = demoShard();
    const t = await start({ db: d.db, cols: 100, rows: 30, env: { XDG_CACHE_HOME: cacheHome } });
    await t.waitFor('sessions ');
    const deadline = Date.now() + 15_000;
    while (readFileSync(path)[0] === 0x5a && readFileSync(path).length === 4096) {
      if (Date.now() > deadline) throw new Error('the garbage cache was not replaced');
      await new Promise((r) => setTimeout(r, 100));
    }
    await t.quit();
  });
});
