import { describe, expect, it } from 'vitest';
import { expandTabs, oneLine, sanitize, stripControls } from '../../src/text/sanitize.js';

/** Nothing a terminal would act on: no C0 but \n and \t, no DEL, no C1, no bidi controls. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/;

describe('sanitize', () => {
  it('strips 7-bit CSI, OSC, DCS, APC, PM and SOS sequences with their payloads', () => {
    expect(stripControls('a\x1b[31mred\x1b[0m b')).toBe('ared b');
    expect(stripControls('a\x1b[2J\x1b[Hb')).toBe('ab');
    expect(stripControls('x\x1b]52;c;cHduZWQ=\x07y')).toBe('xy');
    expect(stripControls('x\x1b]0;title\x1b\\y')).toBe('xy');
    expect(stripControls('x\x1bP1$rq\x1b\\y')).toBe('xy');
    expect(stripControls('x\x1b_apc\x1b\\y\x1b^pm\x1b\\z\x1bXsos\x1b\\!')).toBe('xyz!');
    expect(stripControls('x\x1bcy\x1b7z\x1b(B!')).toBe('xyz!');
  });

  it('strips the 8-bit C1 forms: CSI 0x9b, OSC 0x9d, DCS 0x90, SOS 0x98, PM 0x9e, APC 0x9f', () => {
    expect(stripControls('a\x9b2Jb')).toBe('ab');
    expect(stripControls('a\x9b31mb')).toBe('ab');
    expect(stripControls('a\x9d52;c;cHduZWQ=\x9cb')).toBe('ab');
    expect(stripControls('a\x9d0;t\x07b')).toBe('ab');
    expect(stripControls('a\x90q\x9cb\x98s\x9cc\x9ep\x9cd\x9fa\x9ce')).toBe('abcde');
    expect(stripControls('a\x84\x8d\x8e\x8fb')).toBe('ab');
  });

  it('drops an unterminated string sequence to the end', () => {
    expect(stripControls('keep \x1b]52;c;AAAA')).toBe('keep ');
    expect(stripControls('keep \x9dforever')).toBe('keep ');
  });

  it('removes other controls and bidi overrides/isolates, keeps newlines and tabs', () => {
    expect(stripControls('a\x00b\x07c\x08d\x7fe')).toBe('abcde');
    expect(stripControls('l1\r\nl2\rl3\u2028l4')).toBe('l1\nl2\nl3\nl4');
    expect(stripControls('\u202eevil\u202c \u2066iso\u2069 \u200fx\u200e')).toBe('evil iso x');
    expect(stripControls('tab\there')).toBe('tab\there');
  });

  it('expands tabs to spaces, to columns of 4', () => {
    expect(expandTabs('a\tb')).toBe('a   b');
    expect(expandTabs('\tx\n12345\ty')).toBe('    x\n12345   y');
    expect(sanitize('a\tb')).not.toContain('\t');
  });

  it('leaves no controls whatever the input (fuzz)', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const alphabet = [
      '\x1b',
      '[',
      ']',
      'P',
      '\\',
      '\x07',
      '\x9b',
      '\x9c',
      '\x9d',
      '\x90',
      'a',
      '2',
      'J',
      ';',
      '\u202e',
      '\t',
      '\n',
      '\r',
      '\x00',
      '\x85',
      'é',
      '中',
    ];
    for (let n = 0; n < 3000; n++) {
      let s = '';
      const len = rnd() % 40;
      for (let i = 0; i < len; i++) s += alphabet[rnd() % alphabet.length];
      const out = sanitize(s);
      expect(UNSAFE.test(out), JSON.stringify(s)).toBe(false);
      expect(out.includes('\t')).toBe(false);
      expect(oneLine(s).includes('\n')).toBe(false);
    }
  });

  it('makes lone surrogates well formed and composes combining marks', () => {
    expect(sanitize('a\ud800b')).toBe('a\ufffdb');
    expect(sanitize('e\u0301')).toBe('é');
  });

  it('folds one-line text', () => {
    expect(oneLine('a\n\nb\tc\x1b[2Jd')).toBe('a b cd');
  });
});
