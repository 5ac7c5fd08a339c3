/**
 * The floor of the TUI benchmarks (issue 12): a trivial full-screen program that draws the cells it is given through
 * the same kind of output the TUI uses (the alternate screen, the cursor hidden, cursor moves and SGR runs, one
 * write), then answers each key with a small repaint (a highlight bar moved by one row, marked, and the status bar redrawn)
 * and exits on `q` (or Ctrl-C), leaving the alternate screen. It loads nothing but Node's own modules, reads no
 * shard and computes nothing: what it takes is what Node, the pty and the emulator take.
 *
 *   node dist/bench/trivial-screen.js CELLS.json
 *
 * CELLS.json is written by bench/tui.ts from the TUI's own first screen as the emulator read it back: one entry per
 * row, each a list of runs `[text, fg, bg, flags]` (fg/bg: -1 for the default, else a 256-colour index; flags:
 * 1 bold, 2 underline, 8 inverse), so both programs put the same characters with the same attributes in every cell.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export type Run = [text: string, fg: number, bg: number, flags: number];
export type Cells = Run[][];

/** The SGR sequence that sets a run's attributes (from the default state). */
function sgr(fg: number, bg: number, flags: number): string {
  const p = ['0'];
  if (flags & 1) p.push('1');
  if (flags & 2) p.push('4');
  if (flags & 8) p.push('7');
  if (fg >= 0) p.push(`38;5;${fg}`);
  if (bg >= 0) p.push(`48;5;${bg}`);
  return `\x1b[${p.join(';')}m`;
}

/** One row, drawn at its line: a cursor move and its runs. */
export function rowBytes(y: number, runs: readonly Run[], invert = false): string {
  let s = `\x1b[${y + 1};1H`;
  for (const [text, fg, bg, flags] of runs) s += sgr(fg, bg, invert ? flags ^ 8 : flags) + text;
  return `${s}\x1b[0m`;
}

export function screenBytes(cells: Cells): string {
  let s = '\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J';
  for (let y = 0; y < cells.length; y++) s += rowBytes(y, cells[y]);
  return s;
}

function main(path: string): void {
  const cells = JSON.parse(readFileSync(path, 'utf8')) as Cells;
  const out = process.stdout;
  const status = cells.length - 1;
  let bar = 1;
  let keys = 0;
  out.write(screenBytes(cells));
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.resume();
  stdin.on('data', (d: Buffer) => {
    const k = d.toString('latin1');
    if (k === 'q' || k === '\x03') {
      out.write('\x1b[0m\x1b[?25h\x1b[?1049l', () => process.exit(0));
      return;
    }
    // A key's repaint: the bar leaves its row and lands on the next (wrapping above the bottom border), and the
    // status bar shows the count of keys; three rows, as a selection move redraws at least.
    keys++;
    const from = bar;
    bar = bar + 1 >= status - 1 ? 1 : bar + 1;
    const line = cells[status].map(
      ([t, fg, bg, f], i): Run => (i === 0 ? [` ${keys}`.padEnd(t.length), fg, bg, f] : [t, fg, bg, f]),
    );
    // The bar's row is inverted and marked in its second cell (a change of text the emulator's read-back sees).
    const mark = `\x1b[${bar + 1};2H\x1b[7m▶\x1b[0m`;
    out.write(rowBytes(from, cells[from]) + rowBytes(bar, cells[bar], true) + mark + rowBytes(status, line));
  });
}

// Only when run as a program: importing it (for its byte builders) runs nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv[2]);
