/**
 * What every benchmark reports, and how (issue 12): a figure never stands alone. Each run measures the figure and
 * the floor (or ceiling) it is to be compared with, one right after the other, so that the machine's drift hits
 * both alike; the ratio of each pair is the figure to read, and the median of the pairs' ratios (with their spread)
 * is what is printed and quoted. The load average is printed before and after.
 *
 * Two kinds of figure:
 * - a rate (events/s, turns/s): the ratio is figure / ceiling, "0.83 of the ceiling" (1 would be the hardware);
 * - a time (ms, s): the ratio is figure / floor, "1.4x the floor", and also the difference figure - floor, which
 *   is what a target such as "<= 150 ms above the trivial program" reads.
 */
import { loadavg } from 'node:os';
import { median } from './stats.js';

export type Kind = 'rate' | 'time';

export interface Pair {
  figure: number;
  floor: number;
}

export interface RatioLine {
  name: string;
  kind: Kind;
  unit: string;
  /** What the floor is, in a few words ("sha256 of the same bytes, 2 threads"). */
  floorIs: string;
  pairs: Pair[];
  /**
   * The target, as the ratio reads it: `>= 0.8` of the ceiling, `<= 150` ms above the floor, `<= 30` (ms, absolute,
   * the median run); `max_at_most`: absolute, the worst run.
   */
  target?: { ratio?: number; above?: number; at_most?: number; at_least?: number; max_at_most?: number };
  note?: string;
}

export interface Summary {
  name: string;
  kind: Kind;
  unit: string;
  floor_is: string;
  runs: number;
  figure: Spread;
  floor: Spread;
  ratio: Spread;
  /** Time figures only: figure - floor, per pair. */
  above?: Spread;
  ok: boolean | null;
  target: string;
  note?: string;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(xs: readonly number[]): Spread {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

export function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

export function summarise(line: RatioLine): Summary {
  const ratios = line.pairs.map((p) => p.figure / p.floor);
  const above = line.kind === 'time' ? line.pairs.map((p) => p.figure - p.floor) : undefined;
  const s: Summary = {
    name: line.name,
    kind: line.kind,
    unit: line.unit,
    floor_is: line.floorIs,
    runs: line.pairs.length,
    figure: spread(line.pairs.map((p) => p.figure)),
    floor: spread(line.pairs.map((p) => p.floor)),
    ratio: spread(ratios),
    above: above ? spread(above) : undefined,
    ok: null,
    target: '',
    note: line.note,
  };
  const t = line.target;
  if (t) {
    const checks: boolean[] = [];
    const words: string[] = [];
    if (t.ratio !== undefined) {
      const ok = line.kind === 'rate' ? s.ratio.median >= t.ratio : s.ratio.median <= t.ratio;
      checks.push(ok);
      words.push(line.kind === 'rate' ? `>= ${t.ratio} of the ceiling` : `<= ${t.ratio}x the floor`);
    }
    if (t.above !== undefined && s.above) {
      checks.push(s.above.median <= t.above);
      words.push(`<= ${t.above} ${line.unit} above the floor`);
    }
    if (t.at_most !== undefined) {
      checks.push(s.figure.median <= t.at_most);
      words.push(`<= ${t.at_most} ${line.unit}`);
    }
    // "No keystroke over 100 ms": the worst run, not the median run, must stay under it.
    if (t.max_at_most !== undefined) {
      checks.push(s.figure.max <= t.max_at_most);
      words.push(`<= ${t.max_at_most} ${line.unit} in every run`);
    }
    if (t.at_least !== undefined) {
      checks.push(s.figure.median >= t.at_least);
      words.push(`>= ${t.at_least} ${line.unit}`);
    }
    s.ok = checks.every(Boolean);
    s.target = words.join(', ');
  }
  return s;
}

function num(v: number): string {
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(a >= 1 ? 2 : 3);
}

function range(s: Spread): string {
  return `${num(s.median)} (${num(s.min)}-${num(s.max)})`;
}

/** One figure as a block of lines: the figure, its floor, the ratio; medians with the spread of the runs. */
export function formatSummary(s: Summary): string {
  const ratio =
    s.kind === 'rate'
      ? `${s.ratio.median.toFixed(2)} of the ceiling (${s.ratio.min.toFixed(2)}-${s.ratio.max.toFixed(2)})`
      : `${s.ratio.median.toFixed(2)}x the floor (${s.ratio.min.toFixed(2)}-${s.ratio.max.toFixed(2)})`;
  const verdict = s.ok === null ? '' : s.ok ? '   ok' : '   MISSED';
  const lines = [
    `${s.name}${verdict}`,
    `  figure   ${range(s.figure)} ${s.unit}   (median of ${s.runs} runs, min-max)`,
    `  floor    ${range(s.floor)} ${s.unit}   ${s.floor_is}`,
    `  ratio    ${ratio}`,
  ];
  if (s.above) lines.push(`  above    ${range(s.above)} ${s.unit} more than the floor`);
  if (s.target) lines.push(`  target   ${s.target}`);
  if (s.note) lines.push(`  note     ${s.note}`);
  return lines.join('\n');
}

/**
 * A benchmark's report: the load average when it starts, each figure as it is measured (stdout, or collected for
 * --json), the load average at the end.
 */
export class Report {
  readonly loadBefore = load();
  readonly summaries: Summary[] = [];
  readonly facts: Record<string, unknown> = {};

  constructor(
    readonly title: string,
    readonly json = false,
  ) {
    if (!json) process.stdout.write(`${title}\nload average before: ${this.loadBefore}\n`);
  }

  fact(key: string, value: unknown): void {
    this.facts[key] = value;
    if (!this.json) process.stdout.write(`${key}: ${String(value)}\n`);
  }

  add(line: RatioLine): Summary {
    const s = summarise(line);
    this.summaries.push(s);
    if (!this.json) process.stdout.write(`\n${formatSummary(s)}\n`);
    return s;
  }

  end(): void {
    const loadAfter = load();
    if (this.json)
      process.stdout.write(
        `${JSON.stringify({ title: this.title, load_before: this.loadBefore, load_after: loadAfter, facts: this.facts, figures: this.summaries }, null, 1)}\n`,
      );
    else process.stdout.write(`\nload average after: ${loadAfter}\n`);
  }
}

/**
 * Runs `floor` then `figure`, `runs` times (at least 5), and returns the pairs. Alternating the order each run would
 * favour neither; the floor goes first so that a cache the figure warms is not given to the floor for free.
 */
export function pairs(runs: number, floor: () => number, figure: () => number): Pair[] {
  const out: Pair[] = [];
  for (let i = 0; i < Math.max(5, runs); i++) {
    const f = floor();
    out.push({ floor: f, figure: figure() });
  }
  return out;
}

export async function pairsAsync(
  runs: number,
  floor: () => Promise<number>,
  figure: () => Promise<number>,
): Promise<Pair[]> {
  const out: Pair[] = [];
  for (let i = 0; i < Math.max(5, runs); i++) {
    const f = await floor();
    out.push({ floor: f, figure: await figure() });
  }
  return out;
}
