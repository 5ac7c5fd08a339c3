import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist/bundle/main.js');

/** The whole CLI's own answer, bypassing bin/arborist's choice of bundle. */
function viaMain(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('arborist with no command starts the browser bundle', () => {
  it('bin/arborist picks dist/bundle/tui.js for no command or options only, main.js for a command', () => {
    const bin = readFileSync(BIN, 'utf8');
    expect(bin).toContain("'tui.js'");
    expect(existsSync(join(ROOT, 'dist/bundle/tui.js'))).toBe(true);
    // The browser's bundle holds none of the other commands, nor chalk (which only their output uses).
    const tui = readFileSync(join(ROOT, 'dist/bundle/tui.js'), 'utf8');
    expect(tui).not.toMatch(/from "chalk"/);
    expect(tui).not.toContain('import Claude Code, OpenClaw or llm histories');
    expect(readFileSync(MAIN, 'utf8')).toContain('import Claude Code, OpenClaw or llm histories');
    expect(readFileSync(MAIN, 'utf8')).toMatch(/from "chalk"/);
  });

  it("loads the importers' readers and writer only when it needs them, and the chunks they are in are there", () => {
    const dir = join(ROOT, 'dist/bundle');
    // What the browser parses before its first screen: tui.js and the chunks it imports statically, transitively.
    const load = (file: string, seen: Set<string>): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(
        /^(?:import|export)\s[^;]*?from\s+"\.\/(chunks\/[^"]+)"|^import\s+"\.\/(chunks\/[^"]+)"/gms,
      ))
        load(m[1] ?? m[2], seen);
    };
    const eager = new Set<string>();
    load('tui.js', eager);
    const eagerText = [...eager].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    for (const name of [
      'function readClaude(',
      'var openclawReader',
      'var llmReader',
      'function writeUnit(',
    ]) {
      expect(eagerText).not.toContain(name);
    }
    // ... and each of them is in a chunk that a dynamic import() of tui.js's graph names.
    const lazy = [...eagerText.matchAll(/import\("\.\/(chunks\/[^"]+)"\)/g)].map((m) => m[1]);
    expect(lazy.length).toBeGreaterThan(0);
    for (const f of lazy) expect(existsSync(join(dir, f))).toBe(true);
    expect(eagerText).toContain('findHistories');
  });

  it('answers help, version and every mistake exactly as the whole CLI does', () => {
    const home = tempDir('arborist-home-');
    const env = { ARBORIST_HOME: home, NO_COLOR: '1' };
    const db = join(home, 'x.db');
    const cases = [
      [],
      ['--help'],
      ['-h'],
      ['--version'],
      ['-V'],
      ['--db='],
      ['--bogus'],
      ['--json', '--bogus'],
      ['--db', db, 'extra'],
      ['--db', db, '--mouse'],
      ['--db', join(home, 'no', 'such', 'dir', 'x.db')],
    ];
    for (const args of cases) {
      const a = cli(args, { env });
      const b = viaMain(args, env);
      expect({ args, code: a.code, stdout: a.stdout, stderr: a.stderr }).toEqual({
        args,
        code: b.code,
        stdout: b.stdout,
        stderr: b.stderr,
      });
    }
    // Not a terminal: one line, exit 2, and the shard it would have opened is not created.
    const r = cli(['--db', db], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^arborist: the browser needs a terminal/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  });
});
