import { describe, expect, it } from 'vitest';
import { closest } from '../../src/text/suggest.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * A mistyped command or option: one line, exit 2, and the name it most likely meant, in each entry point (the
 * whole CLI, the browser's, status's and mcp's bundles). Before, `arborist lsit` said only "unknown command" and
 * `arborist find --limt 3` node's own "Unknown option '--limt'", with no way on but reading the whole help.
 */
describe('typos', () => {
  it('an unknown command names the one meant, when one is near', () => {
    const db = tempDb();
    const cases: [string[], string][] = [
      [['lsit'], "unknown command 'lsit' (did you mean 'list'? see arborist --help)"],
      [['improt'], "unknown command 'improt' (did you mean 'import'? see arborist --help)"],
      [['verif'], "unknown command 'verif' (did you mean 'verify'? see arborist --help)"],
      [['--db', db, 'lsit'], "unknown command 'lsit' (did you mean 'list'? see arborist --help)"],
      [['xyzzy'], "unknown command 'xyzzy' (see arborist --help)"],
      [['help', 'nosuch'], "unknown command 'nosuch' (see arborist --help)"],
      [
        ['import', 'claud'],
        "unknown source 'claud' (did you mean claude? claude, openclaw, llm, codex, gemini, copilot, opencode, pi, aider, arborist)",
      ],
    ];
    for (const [args, line] of cases) {
      const r = cli(args, { env: { ARBORIST_DB: db } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`arborist: ${line}\n`);
      expect(r.stdout).toBe('');
    }
  });

  it('an unknown option names the one meant and the help of its command', () => {
    const db = tempDb();
    const cases: [string[], string][] = [
      [
        ['find', 'x', '--limt', '3'],
        "unknown option '--limt' (did you mean --limit? see arborist find --help)",
      ],
      [['status', '--shrot'], "unknown option '--shrot' (did you mean --short? see arborist status --help)"],
      [['mcp', '--dbb', db], "unknown option '--dbb' (did you mean --db? see arborist mcp --help)"],
      [['--mose'], "unknown option '--mose' (did you mean --mouse? see arborist --help)"],
      [['list', '--frobnicate'], "unknown option '--frobnicate' (see arborist list --help)"],
      [['list', '-x'], "unknown option '-x' (see arborist list --help)"],
    ];
    for (const [args, line] of cases) {
      const r = cli(args, { env: { ARBORIST_DB: db } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`arborist: ${line}\n`);
    }
  });

  it('arborist help [COMMAND] is --help', () => {
    const all = cli(['help']);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(cli(['--help']).stdout);
    const find = cli(['help', 'find']);
    expect(find.code).toBe(0);
    expect(find.stdout).toBe(cli(['find', '--help']).stdout);
    expect(find.stdout).toMatch(/^usage: arborist find QUERY/);
  });

  it('closest: a prefix of one, else one near enough and nearer than any other', () => {
    const names = ['list', 'show', 'tree', 'keep', 'chain-check', 'check', 'import', 'export'];
    expect(closest('lsit', names)).toBe('list');
    expect(closest('chain', names)).toBe('chain-check');
    expect(closest('help', names)).toBeUndefined(); // two edits from keep: too far for four letters
    expect(closest('xport', names)).toBe('export');
    expect(closest('', names)).toBeUndefined();
    expect(closest('shwo', ['show', 'shoo'])).toBeUndefined(); // a tie names neither
  });
});
