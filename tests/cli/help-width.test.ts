import { describe, expect, it } from 'vitest';
import { chainCheckCmd } from '../../src/cli/commands/chain.js';
import { entryCmd } from '../../src/cli/commands/entries.js';
import { importCmd } from '../../src/cli/commands/import.js';
import { keepCmd } from '../../src/cli/commands/keep.js';
import { statusCmd } from '../../src/cli/commands/status.js';
import { syncCmd } from '../../src/cli/commands/sync.js';
import { commandHelp, HELP_WIDTH, wrapHelp } from '../../src/cli/help.js';
import { displayWidth } from '../../src/text/width.js';
import { cli } from '../support/cli.js';

/**
 * Help is read in 80-column panes over ssh: `arborist --help` and every command's --help (and a subcommand's, and
 * the browser's, status's and mcp's own bundles) keep every line within 80 columns. Before, 21 of the 36 lines of
 * `arborist --help` were wider (status's row 189 columns), and import's help ran to 164.
 */
describe('--help fits 80 columns', () => {
  const tooWide = (text: string) => text.split('\n').filter((l) => displayWidth(l) > HELP_WIDTH);

  it('arborist --help and every command it lists', () => {
    const top = cli(['--help']);
    expect(top.code).toBe(0);
    expect(tooWide(top.stdout)).toEqual([]);
    // The commands list: a name at two in, its summary after; a wrapped summary's lines are indented further.
    const names = [...top.stdout.matchAll(/^ {2}([a-z][a-z-]*) {2,}\S/gm)].map((m) => m[1]);
    expect(names).toEqual(
      expect.arrayContaining(['list', 'find', 'import', 'keep', 'sync', 'status', 'mcp']),
    );
    expect(names.length).toBeGreaterThanOrEqual(25);
    const asked = [
      ...names.map((n) => [n, '--help']),
      ['sync', 'remote', '--help'],
      ['entry', 'set', '--help'],
      ['keep', '--status', '--help'],
      ['help', 'import'],
    ];
    for (const args of asked) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/^usage: arborist /);
      expect(tooWide(r.stdout), args.join(' ')).toEqual([]);
    }
  }, 120_000);

  it('keeps the content: the same words in the same order, a table row and a usage alternative read as one', () => {
    for (const cmd of [importCmd, syncCmd, keepCmd, statusCmd, entryCmd, chainCheckCmd]) {
      const raw = `usage: ${cmd.usage}\n${cmd.summary}\n${cmd.details ? `\n${cmd.details()}` : ''}`;
      const help = commandHelp(cmd);
      expect(help.split(/\s+/), cmd.name).toEqual(raw.split(/\s+/));
      expect(tooWide(help), cmd.name).toEqual([]);
    }
    // A table row goes on under its last column; a usage line breaks between options, before a `|`.
    const row = `  pi        Pi                  ${'a long description '.repeat(5).trim()}`;
    expect(wrapHelp(row).split('\n')).toEqual([
      '  pi        Pi                  a long description a long description a long',
      `${' '.repeat(32)}description a long description a long`,
      `${' '.repeat(32)}description`,
    ]);
    expect(commandHelp(keepCmd).split('\n').slice(0, 4)).toEqual([
      'usage: arborist keep [--poll DUR] [--rescan DUR] [--settle DUR]',
      '         [--max-watches N] [--no-sidechains] | keep --status',
      '         | keep --install|--uninstall [--dry-run]',
      '         [--service systemd|launchd|none]',
    ]);
    // A line that fits is left as it is.
    expect(wrapHelp('  short  line  ')).toBe('  short  line  ');
  });
});
