/**
 * Optional timing traces, read by the benches, appended to their files on quit (best effort):
 * - ARBORIST_TUI_TRACE=FILE (bench/tui.ts): one line per key press: the ms in the reducer and runtime, in the
 *   view, in painting, and in all;
 * - ARBORIST_FIND_TRACE=FILE (bench/find-tui.ts): one line per find query whose hits got drawn: its seq, the ms
 *   from asking (the key press) to the hits on screen, and the ms the query itself took.
 */
import { appendFileSync } from 'node:fs';
import type { Action } from '../core/actions.js';
import type { Effect } from '../core/effects.js';
import type { State } from '../core/state.js';

export class Trace {
  private readonly keyPath = process.env.ARBORIST_TUI_TRACE;
  private readonly findPath = process.env.ARBORIST_FIND_TRACE;
  private readonly keys: string[] = [];
  private readonly finds: string[] = [];
  private keyStart = 0;
  private keyDone = 0;
  private viewStart = 0;
  private viewDone = 0;
  private readonly findAsked = new Map<number, number>();
  private readonly findMs = new Map<number, number>();

  /** Timing is only read when a trace is on (performance.now() costs little, but nothing is better). */
  get timing(): boolean {
    return this.keyPath !== undefined;
  }

  keyPressed(): void {
    if (this.keyPath) this.keyStart = performance.now();
  }

  keyHandled(): void {
    if (this.keyPath) this.keyDone = performance.now();
  }

  /** After each update: when find queries were asked, and how long answered ones took. */
  updated(a: Action, effects: readonly Effect[]): void {
    if (!this.findPath) return;
    for (const e of effects) if (e.type === 'search') this.findAsked.set(e.seq, performance.now());
    if (a.type === 'found' && a.ms !== undefined) this.findMs.set(a.seq, a.ms);
  }

  viewing(): void {
    if (this.keyPath) this.viewStart = performance.now();
  }

  viewed(): void {
    if (this.keyPath) this.viewDone = performance.now();
  }

  /** After a frame is on screen. */
  painted(state: State): void {
    if (this.findPath && state.overlay?.kind === 'find') {
      const seq = state.overlay.shown;
      const asked = this.findAsked.get(seq);
      if (asked !== undefined) {
        const ms = this.findMs.get(seq)?.toFixed(2) ?? '-';
        this.finds.push(`${seq} ${(performance.now() - asked).toFixed(2)} ${ms}`);
        this.findAsked.delete(seq);
        this.findMs.delete(seq);
      }
    }
    if (this.keyPath && this.keyStart > 0) {
      const t2 = performance.now();
      const { keyStart, keyDone, viewStart, viewDone } = this;
      const ms = [keyDone - keyStart, viewDone - viewStart, t2 - viewDone, t2 - keyStart];
      this.keys.push(ms.map((x) => x.toFixed(2)).join(' '));
      this.keyStart = 0;
    }
  }

  flush(): void {
    for (const [path, lines] of [
      [this.keyPath, this.keys],
      [this.findPath, this.finds],
    ] as const) {
      if (!path) continue;
      try {
        appendFileSync(path, lines.map((l) => `${l}\n`).join(''));
      } catch {
        // tracing is best effort
      }
    }
  }
}
