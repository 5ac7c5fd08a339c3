import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ACTIONS,
  buildKeymap,
  helpRows,
  isValidKey,
  KeymapError,
  keysMarkdown,
  parseKeysJson,
  prettyKey,
} from '../../src/keymap/index.js';

const DOC = fileURLToPath(new URL('../../docs/keys.md', import.meta.url));

describe('the key map', () => {
  it('has unique action ids and no key bound twice by default', () => {
    expect(new Set(ACTIONS.map((a) => a.id)).size).toBe(ACTIONS.length);
    const km = buildKeymap();
    expect(km.byKey.get('j')).toBe('move.down');
    expect(km.byKey.get('down')).toBe('move.down');
    expect(km.byKey.get('q')).toBe('quit');
    expect(km.byKey.get('[')).toBe('branch.prev');
    expect(km.byKey.get('escape')).toBe('close');
    for (const a of ACTIONS) for (const k of a.keys) expect(isValidKey(k), k).toBe(true);
  });

  it('covers what the issue asks for', () => {
    const km = buildKeymap();
    const need: [string, string][] = [
      ['up', 'move.up'],
      ['k', 'move.up'],
      ['left', 'tree.left'],
      ['h', 'tree.left'],
      ['right', 'tree.right'],
      ['l', 'tree.right'],
      ['pageup', 'page.up'],
      ['pagedown', 'page.down'],
      ['home', 'move.first'],
      ['end', 'move.last'],
      [']', 'branch.next'],
      ['tab', 'pane.switch'],
      ['a', 'ask'],
      ['f', 'fork'],
      ['b', 'branches'],
      ['c', 'chain.check'],
      ['?', 'help'],
      ['/', 'find'],
      ['n', 'find.next'],
      ['N', 'find.prev'],
    ];
    for (const [k, id] of need) expect(km.byKey.get(k), k).toBe(id);
  });

  it("user overrides replace an action's keys, field by field", () => {
    const km = buildKeymap({ 'move.down': ['w', 'C-n'], quit: 'x' });
    expect(km.keysOf('move.down')).toEqual(['w', 'C-n']);
    expect(km.byKey.get('j')).toBeUndefined();
    expect(km.byKey.get('w')).toBe('move.down');
    expect(km.byKey.get('x')).toBe('quit');
    expect(km.byKey.get('q')).toBeUndefined();
    expect(km.keysOf('move.up')).toEqual(['up', 'k']);
  });

  it('refuses an unknown action, a bad key name, a key bound twice, and a quit without keys, in one line', () => {
    const cases: [unknown, RegExp][] = [
      [{ 'move.dwn': 'j' }, /^keys\.json: unknown action 'move\.dwn' \(known: move\.down, /],
      [{ ask: 'j' }, /^keys\.json: key 'j' is bound to both move\.down and ask$/],
      [{ ask: ['x', 'x'], fork: 'x' }, /key 'x' is bound to both ask and fork/],
      [{ ask: 'Ctrl-x' }, /'Ctrl-x' \(for ask\) is not a key name/],
      [{ ask: 3 }, /keys of 'ask' must be a key name or a list of key names/],
      [{ quit: [] }, /quit must keep at least one key/],
      [[], /expected an object/],
      [null, /expected an object/],
    ];
    for (const [o, re] of cases) {
      let err: unknown;
      try {
        buildKeymap(o);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(o)).toBeInstanceOf(KeymapError);
      expect((err as Error).message).toMatch(re);
      expect((err as Error).message).not.toContain('\n');
    }
    expect(() => parseKeysJson('{ "ask": ', '/h/keys.json')).toThrow(/^\/h\/keys\.json: not valid JSON/);
  });

  it('knows blessed key names', () => {
    for (const k of ['j', 'J', '?', '[', 'é', 'C-c', 'M-x', 'S-tab', 'C-S-up', 'f12', 'space', 'pageup']) {
      expect(isValidKey(k), k).toBe(true);
    }
    for (const k of ['', 'Ctrl-c', 'S-j', 'C-', 'page up', 'C-C-c', ' ', 'up '])
      expect(isValidKey(k), k).toBe(false);
    expect(prettyKey('C-c')).toBe('Ctrl-C');
    expect(prettyKey('S-tab')).toBe('Shift-Tab');
    expect(prettyKey('pagedown')).toBe('PgDn');
    expect(prettyKey('down')).toBe('↓');
  });

  it('the help overlay lists every action with its keys and description', () => {
    const rows = helpRows(buildKeymap({ ask: 'C-a' })).flatMap((g) => g.rows);
    expect(rows).toContainEqual(['Ctrl-A', ACTIONS.find((a) => a.id === 'ask')!.description]);
    expect(rows.length).toBeGreaterThanOrEqual(ACTIONS.length);
  });

  it('docs/keys.md is generated from the same table (and has not drifted)', () => {
    const want = keysMarkdown();
    if (process.env.UPDATE_KEYS_DOC) writeFileSync(DOC, want);
    const have = readFileSync(DOC, 'utf8');
    expect(
      have,
      'docs/keys.md drifted from src/keymap: run UPDATE_KEYS_DOC=1 npx vitest run tests/keymap',
    ).toBe(want);
    for (const a of ACTIONS) expect(have).toContain(`\`${a.id}\``);
  });
});
