/**
 * An answer's prose rendered as markdown for the terminal: lines of styled runs at a width. markdown-it parses (a
 * flat token stream, so walking it needs no recursion, and a nesting cap of its own); this lays the tokens out:
 * headings without their `#`, emphasis, inline code, lists with bullets, numbers and task boxes, block quotes
 * behind a bar, tables with aligned columns (one `header: value` line per cell when they do not fit), links with
 * their address, rules, and fenced code highlighted by its language (./highlight.ts), never re-flowed as prose.
 *
 * Input is sanitised before it gets here (model.ts), and every piece of text the parser hands back goes through
 * safeLine() (the parser decodes entities such as `&#x202e;`), so the only escapes that reach the terminal are the
 * ones the canvas adds for styles. What cannot be rendered safely (nesting deeper than the parser's cap, text too
 * large to parse in a blink) is shown as plain wrapped text, with nothing lost.
 */
import type { MarkdownIt, Token } from 'markdown-it';
import { safeLine } from '../../../text/sanitize.js';
import { displayWidth, truncateLeft, wrapRanges, wrapRuns } from '../../../text/width.js';
import { Style } from '../../term/canvas.js';
import { loadMarkdownIt } from './engines.js';
import { HIGHLIGHT_MAX, highlightLines } from './highlight.js';
import { inlineRuns, type Span, taskBox } from './markdown-inline.js';

export type { Span } from './markdown-inline.js';

/** One rendered line: its runs, and their text joined (what searches and tests read). */
export interface MdLine {
  text: string;
  spans: Span[];
}

/** markdown-it stops parsing a block nested this deep (and drops what follows it), so deeper text is shown
 * plain instead. */
const MAX_NESTING = 100;
/** Past this a text is shown plain: parsing prose costs ~1-2 µs a character, on the UI thread (a long code block
 * is far cheaper, and a 100,000-line one is under this). */
export const MARKDOWN_MAX = 2_000_000;
/** Past this many table cell bars likewise (a table of 500,000 cells takes seconds to parse). */
const MAX_BARS = 100_000;

let parser: MarkdownIt | null = null;

function md(): MarkdownIt {
  // html off: HTML is shown as the text it is. No linkify, no typographer: the text reads as typed.
  parser ??= loadMarkdownIt()({ html: false, linkify: false, typographer: false, maxNesting: MAX_NESTING });
  return parser;
}

/** What warmStep() loads, in turn: the parser, a sample laid out (x3), then the grammars answers use most. */
const WARM = ['', '*', '*', '*', 'ts', 'python', 'bash', 'json', 'js', 'diff'];
let warmed = 0;

/** A page of the markdown answers hold, laid out a few times ahead of need: the first long answer otherwise runs
 * the parser's and the layout's code cold (a 10,000-line answer: ~1 s cold, ~0.2 s warm, on a loaded machine). */
function sample(): string {
  const para =
    'Some **strong** and *soft* words with `code` and [a link](https://example.com/a), then more words.';
  const block = [
    '## A heading',
    para,
    para,
    '',
    '- one item',
    '- two items',
    '  - nested [ ] item',
    '1. first',
    '2. second',
    '',
    '> quoted words',
    '',
    '| a | b |',
    '|---|--:|',
    '| x | 1 |',
    '',
    '```',
    'plain code',
    '```',
    '',
  ].join('\n');
  return block.repeat(20);
}

/**
 * One step of loading the renderer before it is needed (the browser calls it in quiet moments), so the first
 * answer does not pay on a key press for the parser, for running its code cold, or for the grammar of a common
 * language: each step is one of them (~5-40 ms). False once all are done.
 */
export function warmStep(): boolean {
  if (warmed >= WARM.length) return false;
  const lang = WARM[warmed++];
  if (lang === '') md();
  else if (lang === '*') renderMarkdown(sample(), 100);
  else highlightLines(lang, 'x');
  return warmed < WARM.length;
}

function line(spans: Span[]): MdLine {
  let text = '';
  for (const s of spans) text += s[0];
  return { text, spans };
}

/** Plain wrapped text: the fallback, and what a too-large or too-deep text shows as. */
export function plainLines(text: string, width: number): MdLine[] {
  const out: MdLine[] = [];
  for (const l of text.split('\n')) {
    for (const [a, b] of wrapRanges(l, width)) out.push(line(a === b ? [] : [[l.slice(a, b), Style.normal]]));
  }
  return out;
}

function countBars(text: string): number {
  let n = 0;
  for (let i = text.indexOf('|'); i >= 0 && n <= MAX_BARS; i = text.indexOf('|', i + 1)) n++;
  return n;
}

/** The rendered lines of a markdown text at `width` cells. */
export function renderMarkdown(text: string, width: number): MdLine[] {
  const w = Math.max(4, width);
  if (text.length > MARKDOWN_MAX || countBars(text) > MAX_BARS) return plainLines(text, w);
  let tokens: Token[];
  try {
    tokens = md().parse(text, {});
  } catch {
    return plainLines(text, w);
  }
  // At the cap the parser skips the rest of the block: show the text plain rather than lose any of it.
  for (const t of tokens) if (t.level >= MAX_NESTING - 1) return plainLines(text, w);
  const out = new Layout(w).run(tokens);
  // Text that renders to nothing (only link definitions, say) is still shown: what is there is never hidden.
  return out.length === 0 && text.trim() !== '' ? plainLines(text, w) : out;
}

// ---- blocks -----------------------------------------------------------------------------------------------------

interface Container {
  kind: 'quote' | 'item';
  /** An item's marker (`• `, `3. `), shown on its first line only; later lines are indented by its width. */
  marker?: string;
  pending?: boolean;
}

interface ListState {
  ordered: boolean;
  next: number;
  depth: number;
}

const BULLETS = ['• ', '◦ ', '▪ '];

class Layout {
  private readonly out: MdLine[] = [];
  private readonly boxes: Container[] = [];
  private readonly lists: ListState[] = [];
  private gap = false;

  constructor(private readonly width: number) {}

  /** The prefix runs of the next line: quote bars and list indents; `take` consumes pending item markers. */
  private prefix(take: boolean): Span[] {
    const spans: Span[] = [];
    for (const b of this.boxes) {
      if (b.kind === 'quote') spans.push(['│ ', Style.mdQuote]);
      else if (b.pending && take) {
        spans.push([b.marker!, Style.mdBullet]);
        b.pending = false;
      } else spans.push([' '.repeat(displayWidth(b.marker!)), Style.normal]);
    }
    // Deep nesting keeps at least half the width for the text: the prefix gives up its left end.
    let text = '';
    for (const s of spans) text += s[0];
    const cap = Math.floor(this.width / 2);
    if (displayWidth(text) > cap) return [[truncateLeft(text, cap), Style.mdQuote]];
    return spans;
  }

  private room(): number {
    let text = '';
    for (const s of this.prefix(false)) text += s[0];
    return Math.max(1, this.width - displayWidth(text));
  }

  private emit(spans: Span[]): void {
    this.out.push(line([...this.prefix(true), ...spans]));
  }

  /** A blank line between blocks: within a quote it keeps the bar. */
  private blank(): void {
    const p = this.prefix(false);
    let text = '';
    for (const s of p) text += s[0];
    const t = text.trimEnd();
    this.out.push(line(t === '' ? [] : [[t, Style.mdQuote]]));
  }

  private startBlock(): void {
    if (this.gap && this.out.length > 0) this.blank();
    this.gap = false;
  }

  private paragraph(runs: Span[][], words = true): void {
    const room = this.room();
    for (const l of runs) for (const wrapped of wrapRuns(l, room, words)) this.emit(wrapped);
  }

  run(tokens: Token[]): MdLine[] {
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      switch (t.type) {
        case 'heading_open': {
          this.startBlock();
          const level = Number(t.tag.slice(1));
          const st = level === 1 ? Style.mdH1 : level === 2 ? Style.mdH2 : Style.mdH3;
          this.paragraph(inlineRuns(tokens[i + 1]?.children ?? null, st));
          i += 2;
          this.gap = true;
          break;
        }
        case 'paragraph_open': {
          if (!t.hidden) this.startBlock();
          const runs = inlineRuns(tokens[i + 1]?.children ?? null, Style.normal);
          const item = this.boxes[this.boxes.length - 1];
          if (item?.kind === 'item' && item.pending) {
            const box = taskBox(runs[0]);
            if (box) item.marker = BULLETS.includes(item.marker!) ? box : `${item.marker}${box}`;
          }
          this.paragraph(runs);
          i += 2;
          this.gap = !t.hidden;
          break;
        }
        case 'blockquote_open':
          this.startBlock();
          this.boxes.push({ kind: 'quote' });
          break;
        case 'blockquote_close':
          this.boxes.pop();
          this.gap = true;
          break;
        case 'bullet_list_open':
        case 'ordered_list_open': {
          // A list right under an item's first line starts on that line's heels, with no gap.
          const inItem = this.boxes[this.boxes.length - 1]?.kind === 'item';
          if (!inItem) this.startBlock();
          const start = Number(t.attrGet('start') ?? 1);
          this.lists.push({
            ordered: t.type === 'ordered_list_open',
            next: Number.isFinite(start) ? start : 1,
            depth: this.lists.length,
          });
          break;
        }
        case 'bullet_list_close':
        case 'ordered_list_close':
          this.lists.pop();
          this.gap = true;
          break;
        case 'list_item_open': {
          const list = this.lists[this.lists.length - 1];
          let marker = BULLETS[(list?.depth ?? 0) % BULLETS.length];
          if (list?.ordered) marker = `${list.next++}${t.markup || '.'} `;
          this.boxes.push({ kind: 'item', marker, pending: true });
          break;
        }
        case 'list_item_close': {
          const item = this.boxes.pop();
          // An empty item still shows its marker.
          if (item?.pending) {
            this.boxes.push(item);
            this.emit([]);
            this.boxes.pop();
          }
          break;
        }
        case 'fence':
        case 'code_block':
          this.startBlock();
          this.code(t.type === 'fence' ? t.info.trim().split(/\s+/)[0] : '', t.content);
          this.gap = true;
          break;
        case 'hr':
          this.startBlock();
          this.emit([['─'.repeat(Math.min(this.room(), 80)), Style.mdRule]]);
          this.gap = true;
          break;
        case 'table_open': {
          this.startBlock();
          let j = i;
          while (j < tokens.length && tokens[j].type !== 'table_close') j++;
          this.table(tokens.slice(i, j));
          i = j;
          this.gap = true;
          break;
        }
        case 'html_block':
          // Not produced with html off; shown as text should a plugin produce it.
          this.startBlock();
          this.paragraph(plainLines(t.content.replace(/\n$/, ''), this.room()).map((l) => l.spans));
          this.gap = true;
          break;
        default:
          break;
      }
    }
    return this.out;
  }

  /** A code block: a frame line naming the language, the lines highlighted (or plain), long lines cut at the
   * width and continued on the next row after a `↪` mark rather than re-flowed. */
  private code(lang: string, content: string): void {
    const body = content.endsWith('\n') ? content.slice(0, -1) : content;
    const name = safeLine(lang);
    const lines = highlightLines(name, body);
    const rows = body.split('\n');
    const room = this.room();
    // Said, not silently dropped: a block too long to colour shows plain.
    const plainNote =
      lines === null && name !== '' && body.length > HIGHLIGHT_MAX ? ' · too long to highlight' : '';
    this.emit([[`┌─${name === '' ? '' : ` ${name}`}${plainNote}`, Style.mdRule]]);
    const inner = Math.max(1, room - 2);
    for (let r = 0; r < rows.length; r++) {
      const runs: Span[] = lines?.[r] ?? (rows[r] === '' ? [] : [[rows[r], Style.mdCodeText]]);
      const parts = wrapRuns(runs, inner, false);
      for (let k = 0; k < parts.length; k++) this.emit([[k === 0 ? '│ ' : '↪ ', Style.mdRule], ...parts[k]]);
    }
    this.emit([['└─', Style.mdRule]]);
  }

  /** A table: aligned columns when they fit the width, else each row as `header: value` lines. */
  private table(tokens: Token[]): void {
    const rows: { cells: Span[][]; align: string[]; head: boolean }[] = [];
    let head = false;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t.type === 'thead_open') head = true;
      else if (t.type === 'thead_close') head = false;
      else if (t.type === 'tr_open') rows.push({ cells: [], align: [], head });
      else if (t.type === 'th_open' || t.type === 'td_open') {
        const runs = inlineRuns(
          tokens[i + 1]?.type === 'inline' ? tokens[i + 1].children : null,
          Style.normal,
        );
        // A cell is one line: a hard break inside one reads as a space.
        const cell: Span[] = [];
        runs.forEach((l, k) => {
          if (k > 0) cell.push([' ', Style.normal]);
          for (const s of l) cell.push(head ? [s[0], Style.mdStrong] : s);
        });
        const style = String(t.attrGet('style') ?? '');
        rows[rows.length - 1]?.cells.push(cell);
        rows[rows.length - 1]?.align.push(
          style.includes('right') ? 'r' : style.includes('center') ? 'c' : 'l',
        );
      }
    }
    if (rows.length === 0) return;
    const cols = Math.max(...rows.map((r) => r.cells.length));
    const widths = new Array<number>(cols).fill(0);
    const cellWidth = (c: Span[]): number => {
      let n = 0;
      for (const s of c) n += displayWidth(s[0]);
      return n;
    };
    for (const r of rows)
      for (let k = 0; k < r.cells.length; k++) widths[k] = Math.max(widths[k], cellWidth(r.cells[k]));
    const room = this.room();
    const total = widths.reduce((a, b) => a + b, 0) + 3 * (cols - 1);
    if (total <= room) {
      for (const r of rows) {
        const spans: Span[] = [];
        for (let k = 0; k < cols; k++) {
          if (k > 0) spans.push([' │ ', Style.mdRule]);
          const c = r.cells[k] ?? [];
          const pad = widths[k] - cellWidth(c);
          const a = r.align[k] ?? 'l';
          const left = a === 'r' ? pad : a === 'c' ? Math.floor(pad / 2) : 0;
          if (left > 0) spans.push([' '.repeat(left), Style.normal]);
          for (const s of c) spans.push(s);
          // No trailing spaces after the last column.
          if (pad - left > 0 && k < cols - 1) spans.push([' '.repeat(pad - left), Style.normal]);
        }
        this.emit(spans);
        if (r.head) this.emit([[widths.map((n) => '─'.repeat(n)).join('─┼─'), Style.mdRule]]);
      }
      return;
    }
    // Too wide: each body row as `header: value` lines, rows apart by a short rule.
    const header = rows.find((r) => r.head)?.cells ?? [];
    const body = rows.filter((r) => !r.head);
    body.forEach((r, n) => {
      if (n > 0) this.emit([['╌╌╌', Style.mdRule]]);
      r.cells.forEach((c, k) => {
        const h = header[k] ?? [[`column ${k + 1}`, Style.mdStrong]];
        this.paragraph([[...h.map((s): Span => [s[0], Style.mdStrong]), [': ', Style.mdStrong], ...c]]);
      });
    });
    if (body.length === 0)
      this.paragraph([header.flatMap((c, k) => (k > 0 ? [[' · ', Style.mdRule] as Span, ...c] : c))]);
  }
}
