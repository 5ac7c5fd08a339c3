/**
 * A character-cell frame: what the screen should show, with no terminal attached. The view paints into it; the
 * terminal layer copies it into blessed's screen buffer. A wide character fills its cell and leaves the next one
 * as a continuation (''), exactly as the terminal will show it, so nothing can push a border out of place.
 */
import { isUnsafeCodePoint } from '../../text/sanitize.js';
import { cpWidth, truncate } from '../../text/width.js';

export enum Style {
  normal,
  border,
  borderFocus,
  title,
  titleFocus,
  sid,
  label,
  dim,
  selFocus,
  selBlur,
  link,
  branch,
  status,
  statusOk,
  statusBroken,
  statusChecking,
  qLabel,
  aLabel,
  header,
  headerSel,
  cross,
  cite,
  error,
  overlay,
  overlayBorder,
  key,
  input,
  info,
  pending,
  banner,
  hint,
  count,
  /** The matched parts of a find hit, and the same on the selected line. */
  match,
  matchSel,
  /** A session's agent badge, its project, and a project's heading (the sessions pane). */
  badge,
  project,
  heading,
  /** An edit's diff in the transcript: added and deleted lines, hunk and file headers (their marks say it in mono). */
  diffAdd,
  diffDel,
  diffHunk,
  // Rendered markdown in answers (src/ui/features/transcript/markdown.ts): headings by level, emphasis, inline
  // code, links and their address, quote bars, list bullets, rules and table/code frames, code text.
  mdH1,
  mdH2,
  mdH3,
  mdStrong,
  mdEm,
  mdCode,
  mdLink,
  mdUrl,
  mdQuote,
  mdBullet,
  mdRule,
  mdCodeText,
  // Highlighted code, by highlight.js scope (src/ui/features/transcript/highlight.ts).
  hlKeyword,
  hlString,
  hlComment,
  hlNumber,
  hlTitle,
  hlType,
  hlAttr,
  hlMeta,
  hlAdd,
  hlDel,
}

export class Frame {
  readonly ch: string[];
  readonly st: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.ch = new Array<string>(width * height).fill(' ');
    this.st = new Uint8Array(width * height);
  }

  /** Sets one cell, first breaking any wide character that the write would cut in half. */
  private put(row: number, x: number, chr: string, style: Style): void {
    const i = row + x;
    if (this.ch[i] === '' && x > 0) this.ch[i - 1] = ' ';
    if (x + 1 < this.width && this.ch[i + 1] === '') this.ch[i + 1] = ' ';
    this.ch[i] = chr;
    this.st[i] = style;
  }

  /** Fills a rectangle with one character (a space by default) of one style. */
  fill(x: number, y: number, w: number, h: number, style: Style, char = ' '): void {
    for (let j = Math.max(0, y); j < Math.min(this.height, y + h); j++) {
      for (let i = Math.max(0, x); i < Math.min(this.width, x + w); i++)
        this.put(j * this.width, i, char, style);
    }
  }

  /**
   * Writes one line of text at (x, y), clipped to `max` cells and to the frame; returns the cells used. Text is
   * expected sanitised; any control or bidi code point that slips through is dropped here all the same.
   */
  text(x: number, y: number, s: string, style: Style, max = this.width - x): number {
    if (y < 0 || y >= this.height || max <= 0) return 0;
    const limit = Math.min(x + max, this.width);
    let cx = x;
    const row = y * this.width;
    for (let i = 0; i < s.length; i++) {
      let cp = s.charCodeAt(i);
      let chr: string;
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
        cp = s.codePointAt(i)!;
        chr = s.slice(i, i + 2);
        i++;
      } else chr = s[i];
      if (cp >= 0x20 && cp < 0x7f) {
        if (cx >= limit) break;
        this.put(row, cx, chr, style);
        cx++;
        continue;
      }
      if (isUnsafeCodePoint(cp) || (cp >= 0xd800 && cp <= 0xdfff)) continue;
      const w = cpWidth(cp);
      if (w === 0) {
        // A combining mark or joiner rides on the cell before it.
        if (cx > x) {
          const at = this.ch[row + cx - 1] === '' && cx - 2 >= x ? cx - 2 : cx - 1;
          this.ch[row + at] += chr;
        }
        continue;
      }
      if (cx + w > limit) break;
      if (w === 2) this.put(row, cx + 1, ' ', style);
      this.put(row, cx, chr, style);
      if (w === 2) this.ch[row + cx + 1] = '';
      cx += w;
    }
    return cx - x;
  }

  /** Re-styles cells without changing their text (selection bars). */
  restyle(x: number, y: number, w: number, style: Style): void {
    if (y < 0 || y >= this.height) return;
    for (let i = Math.max(0, x); i < Math.min(this.width, x + w); i++) this.st[y * this.width + i] = style;
  }

  /** A box outline with an optional title on the top edge. */
  box(x: number, y: number, w: number, h: number, style: Style, title?: string, titleStyle?: Style): void {
    if (w < 2 || h < 2) return;
    const r = x + w - 1;
    const b = y + h - 1;
    this.fill(x + 1, y, w - 2, 1, style, '─');
    this.fill(x + 1, b, w - 2, 1, style, '─');
    this.fill(x, y + 1, 1, h - 2, style, '│');
    this.fill(r, y + 1, 1, h - 2, style, '│');
    this.fill(x, y, 1, 1, style, '┌');
    this.fill(r, y, 1, 1, style, '┐');
    this.fill(x, b, 1, 1, style, '└');
    this.fill(r, b, 1, 1, style, '┘');
    if (title && w > 4) {
      this.text(x + 1, y, ' ', style, 1);
      const used = this.text(x + 2, y, truncate(title, w - 4), titleStyle ?? style, w - 4);
      this.text(x + 2 + used, y, ' ', style, 1);
    }
  }

  /** The frame as plain text lines (tests, debugging). */
  lines(): string[] {
    const out: string[] = [];
    for (let y = 0; y < this.height; y++)
      out.push(this.ch.slice(y * this.width, (y + 1) * this.width).join(''));
    return out;
  }
}
