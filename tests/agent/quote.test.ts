/**
 * The words of a line printed for pasting (`arborist resume --no-exec`, `--print`): bash reads each back as exactly
 * the string quoted, and the printed text carries nothing the terminal sanitiser would drop or change.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, shellPath, shellQuote } from '../../src/agent/index.js';
import { stripControls } from '../../src/text/sanitize.js';

const WORDS = [
  'plain',
  '',
  '-x',
  '--resume',
  '=ls',
  'a=b',
  'new\nline',
  'cr\rlf\r\n',
  'tab\there',
  '\x1b[31mred\x1b[0m',
  '\x1b]0;title\x07',
  'del\x7f c1\x85\x9b',
  'bidi\u202eevil\u2066',
  'ls\u2028ps\u2029',
  'bom\ufeff',
  "it's",
  '"double"',
  '$HOME \u0024{HOME} $(id) `id`',
  'bang! !! !$',
  'back\\slash \\n \\x41',
  "$'ansi'",
  'glob * ? [a] {a,b} ~',
  '; && | > < & #',
  'café',
  'cafe\u0301', // NFD: printed NFC it would be another name
  '日本語 ☃ 😀',
  'lone \ud800 surrogate',
];

function bashWords(line: string): string[] {
  const r = spawnSync('bash', ['-c', `for a in ${line}; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it('bash reads every word back as the string quoted (a lone surrogate as U+FFFD, as Node passes it on)', () => {
    const line = WORDS.map(shellQuote).join(' ');
    expect(bashWords(line)).toEqual(WORDS.map((w) => w.toWellFormed()));
  });

  it('prints no character the sanitiser would drop or turn, and nothing NFC would change', () => {
    for (const w of WORDS) {
      const q = shellQuote(w);
      expect(stripControls(q), JSON.stringify(w)).toBe(q);
      expect(q.normalize('NFC'), JSON.stringify(w)).toBe(q);
      expect(q).not.toMatch(/[\n\t]/);
    }
  });

  it('leaves plain words bare and quotes the rest', () => {
    expect(shellQuote('claude')).toBe('claude');
    expect(shellQuote('/home/a/b-c_d.e')).toBe('/home/a/b-c_d.e');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('a\nb')).toBe("$'a\\nb'");
    expect(shellQuote('=ls')).toBe("'=ls'");
  });
});

describe('commandLine and shellPath', () => {
  it('cd goes to the folder whatever it is called: a leading -, `-` alone, relative (no CDPATH), -P', () => {
    expect(commandLine(['claude', '--resume', 'id'], '/w/p')).toBe('cd -P /w/p && claude --resume id');
    expect(commandLine(['claude'], '-x')).toBe('cd -P ./-x && claude');
    expect(commandLine(['claude'], '-')).toBe('cd -P ./- && claude');
    expect(commandLine(['claude'], 'rel dir')).toBe("cd -P './rel dir' && claude");
    expect(shellPath('/a\nb')).toBe("$'/a\\nb'");
  });
});
