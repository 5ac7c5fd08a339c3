/**
 * Words for a line a person pastes into a shell (`arborist resume --no-exec`, the command that stores a kept
 * answer): each reads back as exactly the string quoted in any POSIX shell (dash, bash, zsh, ksh), and the printed
 * text holds no control character but, at most, the newlines a word ends with.
 */

/**
 * Characters that must not reach a terminal raw (what src/text/sanitize.ts's stripControls drops or turns into a
 * newline) and lone surrogates: written as printf escapes.
 */
const UNPRINTABLE =
  /[\x00-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]|[\ud800-\udfff]/u;

/** A character as printf %b's octal escapes of its UTF-8 bytes (a lone surrogate as U+FFFD, as Node passes it on). */
function octal(ch: string): string {
  return [...Buffer.from(ch, 'utf8')].map((b) => `\\0${b.toString(8).padStart(3, '0')}`).join('');
}

/** `'...'`: every character but `'` stands for itself inside POSIX single quotes. */
const singleQuoted = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/**
 * One argument as a POSIX shell reads it back: bare when it is plainly safe, else in single quotes. A word holding a
 * control character (a newline, an escape), a bidi control, or text that NFC would change is written as
 * `"$(printf %b '...')"` with those characters as octal escapes (\0ooo, POSIX printf's %b), so the line can be
 * printed to a terminal as it is and still names the same bytes when pasted. bash's $'...' would be shorter, but
 * dash (Debian's /bin/sh) has no $'...'. A command substitution drops the newlines its output ends with, so those
 * of a word that ends in newlines follow it raw inside single quotes: the only portable way to write them.
 */
export function shellQuote(a: string): string {
  // `=` first would be zsh's =command expansion; the rest never means anything to a shell.
  if (/^[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*$/.test(a)) return a;
  const nfcStable = a.normalize('NFC') === a;
  if (nfcStable && !UNPRINTABLE.test(a)) return singleQuoted(a);
  const body = a.replace(/\n+$/, '');
  if (body !== a) return (body === '' ? '' : shellQuote(body)) + singleQuoted(a.slice(body.length));
  let out = '';
  for (const ch of body) {
    if (ch === '\\') out += '\\\\';
    // As escapes: `'` would end the quotes, and `!` inside "..." is an interactive bash's history expansion.
    else if (ch === "'" || ch === '!') out += octal(ch);
    else if (UNPRINTABLE.test(ch) || (!nfcStable && ch > '\x7f')) out += octal(ch);
    else out += ch;
  }
  return `"$(printf %b '${out}')"`;
}

/**
 * A path as one word for a pasted line: a relative one (the lines carry whatever cwd they were written with)
 * starts with ./, so that a leading - is not an option, `cd -` is not $OLDPWD and `cd` does not search CDPATH.
 */
export function shellPath(p: string): string {
  return shellQuote(p.startsWith('/') ? p : `./${p}`);
}
