/** The marks the view draws, in Unicode or (for the Linux console's fonts) ASCII. */

export interface Glyphs {
  open: string;
  closed: string;
  branch: string;
  link: string;
  up: string;
  ok: string;
  cursor: string;
  more: string;
}

export const UNICODE_GLYPHS: Glyphs = {
  open: '▾',
  closed: '▸',
  branch: '⑂',
  link: '↳',
  up: '↰',
  ok: '✓',
  cursor: '▏',
  more: '…',
};

/** For consoles with small fonts (TERM=linux): one cell each, in every console font. */
export const ASCII_GLYPHS: Glyphs = {
  open: 'v',
  closed: '>',
  branch: 'Y',
  link: '>',
  up: '^',
  ok: 'ok',
  cursor: '_',
  more: '~',
};
