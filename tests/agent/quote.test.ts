/**
 * The words of a line printed for pasting (`arborist resume --no-exec`, `--print`): bash and sh (dash on Debian,
 * which has no $'...') read each back as exactly the string quoted, and the printed text carries nothing the
 * terminal sanitiser would drop or change.
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
  // A control character beside what is special inside "$(...)" and to printf %b
  'esc\x1b ) " ` $(id) \' ! % %b \\0101 \\c \\ end',
  'digit after an escape \x1b1 \x7f7',
  // A command substitution drops trailing newlines: they are written raw, in single quotes
  'ends in newlines\n\n',
  'esc\x1b and a newline at the end\n',
  '\n',
  '-\n',
];

function wordsOf(shell: string, line: string): string[] {
  const r = spawnSync(shell, ['-c', `for a in ${line}; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it.each(['bash', 'sh'])(
    '%s reads every word back as the string quoted (a lone surrogate as U+FFFD, as Node passes it on)',
    (shell) => {
      const line = WORDS.map(shellQuote).join(' ');
      expect(wordsOf(shell, line)).toEqual(WORDS.map((w) => w.toWellFormed()));
    },
  );

  it('prints no character the sanitiser would drop or turn, nothing NFC would change, no bash-only quoting', () => {
    for (const w of WORDS) {
      const q = shellQuote(w);
      expect(stripControls(q), JSON.stringify(w)).toBe(q);
      expect(q.normalize('NFC'), JSON.stringify(w)).toBe(q);
      expect(q).not.toMatch(/^\$'/);
      // Only the newlines a word ends with are printed raw (quoted, at its end).
      const trailing = /\n+$/.exec(w)?.[0] ?? '';
      expect(q.endsWith(`${trailing}'`) || trailing === '', JSON.stringify(w)).toBe(true);
      expect(q.slice(0, q.length - trailing.length - 1)).not.toMatch(/[\n\t]/);
    }
  });

  it('leaves plain words bare and quotes the rest', () => {
    expect(shellQuote('claude')).toBe('claude');
    expect(shellQuote('/home/a/b-c_d.e')).toBe('/home/a/b-c_d.e');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('a\nb')).toBe(`"$(printf %b 'a\\0012b')"`);
    expect(shellQuote("it's\x1b!")).toBe(`"$(printf %b 'it\\0047s\\0033\\0041')"`);
    expect(shellQuote('a\n')).toBe("a'\n'");
    expect(shellQuote('=ls')).toBe("'=ls'");
  });
});

describe('commandLine and shellPath', () => {
  it('cd goes to the folder whatever it is called: a leading -, `-` alone, relative (no CDPATH), -P', () => {
    expect(commandLine(['claude', '--resume', 'id'], '/w/p')).toBe('cd -P /w/p && claude --resume id');
    expect(commandLine(['claude'], '-x')).toBe('cd -P ./-x && claude');
    expect(commandLine(['claude'], '-')).toBe('cd -P ./- && claude');
    expect(commandLine(['claude'], 'rel dir')).toBe("cd -P './rel dir' && claude");
    expect(shellPath('/a\nb')).toBe(`"$(printf %b '/a\\0012b')"`);
    expect(shellPath('-\n')).toBe("./-'\n'");
  });
});
