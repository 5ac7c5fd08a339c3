/**
 * A time for every line, and its ISO text. A line without a good timestamp takes its neighbour's, so turns,
 * sessions and checkpoints never get an invalid date; a prompt's own timestamp text is kept when it is already
 * what toISOString would write, which saves a Date round trip per turn.
 */
import type { Node, UnitFile } from './unit.js';

/**
 * `YYYY-MM-DDTHH:MM:SS.mmmZ` that toISOString would give back unchanged (a day past 28 or an hour past 23 may
 * roll over, so those are left to Date).
 */
function isCanonicalIso(s: string): boolean {
  if (s.length !== 24 || s.charCodeAt(23) !== 90 /* Z */ || s[10] !== 'T' || s[19] !== '.') return false;
  if (s[4] !== '-' || s[7] !== '-' || s[13] !== ':' || s[16] !== ':') return false;
  for (const i of [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return s.slice(8, 10) <= '28' && s.slice(11, 13) <= '23' && s.slice(5, 7) <= '12' && s.slice(5, 7) >= '01';
}

/** Each node's time: a line without a good time takes the previous line's (the next one's at the start of a file). */
export function lineTimes(nodes: Node[], files: UnitFile[]): Float64Array {
  const time = new Float64Array(nodes.length);
  for (const uf of files) {
    let last = Number.NaN;
    let firstGood = Number.NaN;
    for (let i = uf.start; i < uf.end && Number.isNaN(firstGood); i++) firstGood = nodes[i].ts;
    if (Number.isNaN(firstGood)) firstGood = uf.rf.mtimeMs;
    for (let i = uf.start; i < uf.end; i++) {
      if (!Number.isNaN(nodes[i].ts)) last = nodes[i].ts;
      time[i] = Number.isNaN(last) ? firstGood : last;
    }
  }
  return time;
}

export const iso = (ms: number) => new Date(Number.isFinite(ms) ? ms : 0).toISOString();

/** A prompt's time as ISO: its own text when that is already canonical (it is, from Claude Code). */
export function isoOf(nodes: Node[], time: Float64Array, i: number): string {
  const raw = nodes[i].rawTime;
  if (raw !== undefined && !Number.isNaN(nodes[i].ts) && isCanonicalIso(raw)) return raw;
  return iso(time[i]);
}
