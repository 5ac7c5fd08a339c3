/**
 * A command of ours run in a child process for the browser (`S`'s sync, the first start's import), so the screen
 * keeps answering and a crash cannot take the browser with it. Its stdout is collected (a JSON report); its stderr
 * is read a line at a time: a line `progress` recognises is passed on, at most every PROGRESS_EVERY_MS (a repaint
 * per line would be wasted), and the first other line is kept as the error's text.
 */
import { type ChildProcess, spawn } from 'node:child_process';

const PROGRESS_EVERY_MS = 100;
const MAX_OUT = 64 * 1024 * 1024;

export interface ChildEnd {
  out: string;
  /** The first stderr line that was no progress, else what stderr held past its last newline. */
  errText: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function runWithProgress<P>(
  argv: readonly string[],
  opts: {
    progress: (line: string) => P | null;
    onProgress: (p: P) => void;
    onEnd: (end: ChildEnd) => void;
    onError: (e: Error) => void;
  },
): ChildProcess {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let errText = '';
  let pending = '';
  let last = 0;
  let latest: P | null = null;
  child.stdout!.on('data', (d: Buffer) => {
    if (out.length < MAX_OUT) out += d.toString('utf8');
  });
  child.stderr!.on('data', (d: Buffer) => {
    pending += d.toString('utf8');
    if (pending.length > MAX_OUT) pending = pending.slice(-4096);
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const p = opts.progress(line);
      if (p !== null) latest = p;
      else if (line.trim() !== '' && errText === '') errText = line;
    }
    const now = Date.now();
    if (latest !== null && now - last >= PROGRESS_EVERY_MS) {
      last = now;
      opts.onProgress(latest);
      latest = null;
    }
  });
  child.on('error', opts.onError);
  child.on('close', (code, signal) => opts.onEnd({ out, errText: errText || pending, code, signal }));
  return child;
}
