/**
 * Key names are blessed's: a printable character as itself (`j`, `J`, `?`, `[`), or a named key (`up`, `pageup`,
 * `tab`, `enter`, `escape`, `space`, `backspace`, `f1`...) with optional `C-`, `M-`, `S-` prefixes (`C-c`, `S-tab`).
 */

const NAMED = new Set([
  'up',
  'down',
  'left',
  'right',
  'pageup',
  'pagedown',
  'home',
  'end',
  'insert',
  'delete',
  'tab',
  'enter',
  'escape',
  'space',
  'backspace',
  ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
]);

/** True for a key name blessed can report (see the module comment). */
export function isValidKey(key: string): boolean {
  if (typeof key !== 'string' || key === '') return false;
  const chars = [...key];
  if (chars.length === 1)
    return /^[\x21-\x7e]$/u.test(key) || (key.codePointAt(0)! > 0xa0 && !/\s/u.test(key));
  const m = /^((?:[CMS]-)*)(.+)$/.exec(key)!;
  const mods = m[1];
  const base = m[2];
  if (mods !== '' && new Set(mods.match(/[CMS]/g)).size !== mods.length / 2) return false;
  if (NAMED.has(base)) return true;
  // C-x and M-x with a letter/digit (S- with a printable char is just the char: `J`, not `S-j`).
  return mods !== '' && !mods.includes('S') && /^[a-z0-9]$/.test(base);
}

const PRETTY: Record<string, string> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  tab: 'Tab',
  enter: 'Enter',
  escape: 'Esc',
  space: 'Space',
  backspace: 'Backspace',
  insert: 'Ins',
  delete: 'Del',
};

/** A key as a person reads it: `↑`, `PgDn`, `Ctrl-C`, `Shift-Tab`. */
export function prettyKey(key: string): string {
  if ([...key].length === 1) return key;
  const m = /^((?:[CMS]-)*)(.+)$/.exec(key)!;
  const base = PRETTY[m[2]] ?? (/^f\d+$/.test(m[2]) ? m[2].toUpperCase() : m[2].toUpperCase());
  const mods = (m[1].match(/[CMS]/g) ?? []).map((c) => ({ C: 'Ctrl-', M: 'Alt-', S: 'Shift-' })[c]!);
  return mods.join('') + base;
}

const SPOKEN: Record<string, string> = { enter: 'Enter', escape: 'Esc', delete: 'Delete' };

/** A second key as a sentence names it ("Next hit (also C-n)", "(also Delete)"). */
export function spokenKey(key: string): string {
  return SPOKEN[key] ?? key;
}
