import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cpWidth, displayWidth, fitWidth, padTo, truncate, wrap, wrapRanges } from '../../src/text/width.js';

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

  it('wraps a 1 MB line in linear time, into the lines it always gave', () => {
    // Each line cut off asked the width of the whole rest first: quadratic, ~20 s for this line (the browser froze).
    const unit = 'lorem ipsum dolor 日本語 sit amet, consectetur adipiscing elit 😀 ';
    const line = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const t0 = performance.now();
    const lines = wrap(line, 72);
    expect(performance.now() - t0).toBeLessThan(1500);
    // the same lines as wrapping each repeat of a short prefix, so the cut places did not move
    const few = unit.repeat(40);
    expect(lines.slice(0, 20)).toEqual(wrap(few, 72).slice(0, 20));
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(72);
    // nothing lost or added but the spaces at the breaks
    expect(lines.join('').replace(/ /g, '')).toBe(line.replace(/ /g, ''));
  });

  it('breaks CJK text between its characters, not only at spaces, and never before a closing mark', () => {
    // A real Copilot CLI answer (tests/import/fixtures/copilot/legacy): it broke at the one space around "80-95%",
    // leaving a row half empty, then hard-broke a row so that "。" began the next one alone.
    const t =
      '所有變更已通過測試驗證，可以安全部署。這次優化專注於最關鍵的記憶體問題，達到了 80-95% 的記憶體使用減少，同時保持所有功能完整運作。';
    const rows = [
      '所有變更已通過測試驗證，可以安全部署。這次優',
      '化專注於最關鍵的記憶體問題，達到了 80-95% 的',
      '記憶體使用減少，同時保持所有功能完整運作。',
    ];
    expect(wrap(t, 44)).toEqual(rows);
    expect(wrapRanges(t, 44).map(([a, b]) => t.slice(a, b))).toEqual(rows);
    for (const w of [5, 7, 10, 13, 20])
      for (const r of wrap(t, w).slice(1)) expect('、。，）」'.includes(r[0]), `${w}: ${r}`).toBe(false);
    // an opening bracket stays with what follows; an emoji sequence is never split; words still break at spaces
    expect(wrap('請看「設定檔」的說明', 8)).toEqual(['請看「設', '定檔」的', '說明']);
    expect(wrap('👩‍💻👩‍💻👩‍💻', 4)).toEqual(['👩‍💻', '👩‍💻', '👩‍💻']);
    expect(wrap('mixed 中文 and English words', 10)).toEqual(['mixed 中文', 'and', 'English', 'words']);
  });
});
