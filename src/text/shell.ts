/**
 * Words for a line a person pastes into a shell (`arborist resume --no-exec`, the command that stores a kept
 * answer): each reads back as exactly the string quoted, and the printed text holds no control character.
 */

/**
 * Characters that must not reach a terminal raw (what src/text/sanitize.ts's stripControls drops or turns into a
 * newline) and lone surrogates: written as escapes inside $'...'.
 */
const UNPRINTABLE =
  /[\x00-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]|[\ud800-\udfff]/u;

/** A character as bash's $'...' escapes of its UTF-8 bytes (a lone surrogate as U+FFFD, as Node passes it on). */
function ansiC(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  return [...Buffer.from(ch, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
}

/**
 * One argument as a POSIX shell reads it back: bare when it is plainly safe, else in single quotes. A word holding a
 * control character (a newline, an escape), a bidi control, or text that NFC would change is written in bash's
 * ANSI-C quotes ($'...', also in zsh, ksh and POSIX.1-2024) with those characters as escapes, so the line can be
 * printed to a terminal as it is and still names the same bytes when pasted.
 */
export function shellQuote(a: string): string {
  // `=` first would be zsh's =command expansion; the rest never means anything to a shell.
  if (/^[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*$/.test(a)) return a;
  const nfcStable = a.normalize('NFC') === a;
  if (nfcStable && !UNPRINTABLE.test(a)) return `'${a.replace(/'/g, `'\\''`)}'`;
  let out = '';
  for (const ch of a) {
    if (ch === '\\' || ch === "'") out += `\\${ch}`;
    // `!` as an escape: an interactive bash's history expansion is not ours to reason about.
    else if (ch === '!') out += '\\x21';
    else if (UNPRINTABLE.test(ch) || (!nfcStable && ch > '\x7f')) out += ansiC(ch);
    else out += ch;
  }
  return `$'${out}'`;
}

/**
 * A path as one word for a pasted line: a relative one (the lines carry whatever cwd they were written with)
 * starts with ./, so that a leading - is not an option, `cd -` is not $OLDPWD and `cd` does not search CDPATH.
 */
export function shellPath(p: string): string {
  return shellQuote(p.startsWith('/') ? p : `./${p}`);
}
