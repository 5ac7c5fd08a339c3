import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cacheFileName, codeCacheDir } from '../../src/cli/code-cache.js';
import { tempDir } from '../support/tmp.js';
import { demoShard, start } from '../tui/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The compiled module (npm test builds first): each run is a process of its own, as each start of arborist is.
const MODULE = join(ROOT, 'dist/src/cli/code-cache.js');

/** Runs `file` through runCached in a new process; what it exported as `v`, and what became of the cache. */
function runIn(file: string, cacheDir: string | undefined): { cache: string; v: unknown } {
  const script = `
    import { runCached } from ${JSON.stringify(MODULE)};
    const r = runCached(${JSON.stringify(file)}, { cacheDir: ${JSON.stringify(cacheDir)}, writeAfterMs: 0 });
    // The cache is written by an unref'd timer: stay long enough for it, as the browser does.
    setTimeout(() => console.log(JSON.stringify({ cache: r.cache, v: r.exports.v })), 50);
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
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
    expect(caches(cacheDir)).toEqual([cacheFileName(file, readFileSync(file, 'utf8'))]);
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
    expect(runIn(file, cacheDir).v).toBe(5);
    // V8 checks only the source's length: a key without the bytes' hash would run 5's bytecode here.
    const after = bundle(dir, 6);
    expect(readFileSync(after, 'utf8').length).toBe(before.length);
    expect(runIn(after, cacheDir)).toEqual({ cache: 'new', v: 6 });
    // ... and the earlier build's cache is removed once the new one is written.
    expect(caches(cacheDir)).toEqual([cacheFileName(after, readFileSync(after, 'utf8'))]);
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

  it('a cache folder that cannot be made or written costs only the cache', () => {
    const dir = tempDir('arb-cc-');
    const file = bundle(dir, 3);
    // A file where the folder would go.
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'x');
    expect(runIn(file, blocked)).toEqual({ cache: 'new', v: 3 });
    expect(runIn(file, blocked)).toEqual({ cache: 'new', v: 3 });
    expect(runIn(file, undefined)).toEqual({ cache: 'off', v: 3 });
  });

  it('lives in XDG_CACHE_HOME (an absolute one), else ~/.cache; ARBORIST_CODE_CACHE=off turns it off', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/c' })).toBe('/x/c/arborist');
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/arborist$/);
    expect(codeCacheDir({})).toMatch(/\/\.cache\/arborist$/);
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/c', ARBORIST_CODE_CACHE: 'off' })).toBeUndefined();
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
    const source = readFileSync(join(ROOT, 'dist/bundle/tui-body.cjs'), 'utf8');
    mkdirSync(cacheDir, { recursive: true });
    const path = join(cacheDir, cacheFileName(join(ROOT, 'dist/bundle/tui-body.cjs'), source));
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
