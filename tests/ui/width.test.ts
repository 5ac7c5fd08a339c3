import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cpWidth, displayWidth, fitWidth, padTo, truncate, wrap } from '../../src/text/width.js';

const require = createRequire(import.meta.url);

describe('display width', () => {
  it('agrees with xterm.js Unicode 11 on every code point (the terminal our tests read)', () => {
    const { Terminal } = require('@xterm/headless');
    const { Unicode11Addon } = require('@xterm/addon-unicode11');
    const t = new Terminal({ allowProposedApi: true });
    t.loadAddon(new Unicode11Addon());
    t.unicode.activeVersion = '11';
    const svc = t._core.unicodeService;
    const bad: string[] = [];
    for (let cp = 0x20; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (svc.wcwidth(cp) !== cpWidth(cp) && bad.length < 10) bad.push(cp.toString(16));
    }
    expect(bad, 'regenerate with: node tests/ui/gen-width-table.mjs > src/text/widthTable.ts').toEqual([]);
  });

  it('measures CJK, emoji, combining marks', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('😀x')).toBe(3);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('ｆｕｌｌ')).toBe(8);
    expect(displayWidth('⌚')).toBe(2);
  });

  it('truncates by cells, never splitting a wide character', () => {
    expect(truncate('日本語テキスト', 7)).toBe('日本語…');
    expect(displayWidth(truncate('日本語テキスト', 7))).toBeLessThanOrEqual(7);
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('abcd', 3)).toBe('ab…');
    expect(fitWidth('a日b', 2)).toEqual({ text: 'a', width: 1 });
    expect(fitWidth('ae\u0301b', 2)).toEqual({ text: 'ae\u0301', width: 2 });
    expect(padTo('日本', 5)).toBe('日本 ');
    expect(truncate('x', 0)).toBe('');
  });

  it('wraps at spaces by width, hard-breaks long words, keeps blank lines', () => {
    expect(wrap('the quick brown fox', 10)).toEqual(['the quick', 'brown fox']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrap('a\n\nb', 5)).toEqual(['a', '', 'b']);
    expect(wrap('日本語のテキスト', 6)).toEqual(['日本語', 'のテキ', 'スト']);
    for (const l of wrap('漢字 and emoji 😀😀😀 mixed text '.repeat(5), 9))
      expect(displayWidth(l)).toBeLessThanOrEqual(9);
    expect(wrap('日', 1)).toEqual(['日']);
  });
});
