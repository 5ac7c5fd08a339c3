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
    // tui.js is the launcher (node: builtins only); the browser itself is tui-body.cjs, run with its code cache.
    const launcher = readFileSync(join(ROOT, 'dist/bundle/tui.js'), 'utf8');
    expect(launcher).toContain('tui-body.cjs');
    expect(
      [...launcher.matchAll(/from "([^"]+)"/g)].map((m) => m[1]).every((m) => m.startsWith('node:')),
    ).toBe(true);
    // The browser's bundle holds none of the other commands, nor chalk (which only their output uses).
    const tui = readFileSync(join(ROOT, 'dist/bundle/tui-body.cjs'), 'utf8');
    expect(tui).not.toMatch(/chalk/);
    expect(tui).not.toContain('import every history found on this machine');
    expect(readFileSync(MAIN, 'utf8')).toContain('import every history found on this machine');
    expect(readFileSync(MAIN, 'utf8')).toMatch(/from "chalk"/);
    // The markdown parser and the grammars are a bundle of their own beside it, required on first use: inlined,
    // their ~600 KB made the first screen 10-15% slower (docs/dependencies.md). The commands' bundle inlines them.
    // Marks of each package's own code: markdown-it's check of its input, lowlight's unknown-language error.
    const MARKS = ['Input data should be a String', 'is not registered'];
    const engines = readFileSync(join(ROOT, 'dist/bundle/md-engines.cjs'), 'utf8');
    for (const m of MARKS) {
      expect(engines).toContain(m);
      expect(tui).not.toContain(m);
      expect(readFileSync(MAIN, 'utf8')).toContain(m);
    }
    expect(tui).toContain('require("./md-engines.cjs")');
    expect(readFileSync(MAIN, 'utf8')).not.toMatch(/from "(markdown-it|lowlight)"/);
  });

  it('the browser bundle is one script: no import() (experimental in a Node 20 vm.Script), no module syntax', () => {
    const tui = readFileSync(join(ROOT, 'dist/bundle/tui-body.cjs'), 'utf8');
    expect(tui).not.toMatch(/\bimport\(/);
    expect(tui).not.toMatch(/^(?:import|export)\s/m);
    expect(tui).not.toContain('import.meta');
    // Strict, as the ES modules it is built from: the directive must come first, before the banner's line.
    expect(tui.startsWith('"use strict";\n')).toBe(true);
    // What it imports lazily (the importers, behind the first start's offer) is inside, but run only on demand.
    expect(tui).toContain('function readClaude(');
    expect(tui).toMatch(/Promise\.resolve\(\)\.then\(\(\) => \(init_offer\(\), offer_exports\)\)/);
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
