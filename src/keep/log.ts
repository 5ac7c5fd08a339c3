import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { oneLine } from '../text/sanitize.js';

/**
 * `$ARBORIST_HOME/keep.log`: one line a batch, bounded. Past `maxBytes` the file becomes `keep.log.1` (replacing the
 * one before) and a new one starts, so the two never hold more than twice the bound. Every line is made one line of
 * printable text (file names and problems come from other tools' folders), so `tail keep.log` is safe on a terminal.
 */

export const LOG_MAX_BYTES = 1024 * 1024;

export class KeepLog {
  private size: number;

  constructor(
    readonly path: string,
    private readonly maxBytes = LOG_MAX_BYTES,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    try {
      this.size = statSync(path).size;
    } catch {
      this.size = 0;
    }
  }

  /** Writes `text` as one line stamped with the time; returns the line as written (without its time). */
  line(text: string, now = new Date()): string {
    const clean = oneLine(text);
    const row = `${now.toISOString()} ${clean}\n`;
    const bytes = Buffer.byteLength(row);
    if (this.size > 0 && this.size + bytes > this.maxBytes) {
      try {
        renameSync(this.path, `${this.path}.1`);
      } catch {
        // gone meanwhile (removed by hand): a new file starts anyway
      }
      this.size = 0;
    }
    try {
      appendFileSync(this.path, row);
      this.size += bytes;
    } catch {
      // A full disk or a removed folder must not stop the keeper keeping turns; the terminal still gets the line.
    }
    return clean;
  }
}
