/**
 * The first start's import (the `i` key on an empty shard): runs `arborist import --json --progress-json` in a
 * child process, once for every history found (an import with no kind reads each agent's history where the first
 * start found it), so the screen keeps answering and a crash of an import cannot take the browser with it. Its
 * stderr carries one JSON progress line a step (shown in the status bar); any other stderr line is an error's text.
 * Each import commits file by file: the browser's data_version poll shows the sessions as they arrive. (One child a
 * source cost a process start each: 1.4 s against 0.35 s for 62 turns of seven agents.)
 */
import { spawn } from 'node:child_process';
import { oneLine } from '../../text/sanitize.js';
import type { Action } from '../core/actions.js';

/** Progress is passed on at most this often. */
const PROGRESS_EVERY_MS = 100;
const MAX_OUT = 64 * 1024 * 1024;

export function importHistories(
  command: readonly string[] | null,
  dbPath: string,
  dispatch: (a: Action) => void,
): void {
  if (command === null || command.length === 0) {
    dispatch({ type: 'historiesImported', turns: 0, problems: 0, failed: 'no arborist command to run' });
    return;
  }
  const child = spawn(
    command[0],
    [...command.slice(1), 'import', '--db', dbPath, '--json', '--progress-json'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  let pending = '';
  let last = 0;
  child.stdout.on('data', (d: Buffer) => {
    if (out.length < MAX_OUT) out += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    pending += d.toString('utf8');
    if (pending.length > MAX_OUT) pending = pending.slice(-4096);
    let latest: string | null = null;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const p = progressText(line);
      if (p !== null) latest = p;
      else if (line.trim() !== '' && err === '') err = line;
    }
    const now = Date.now();
    if (latest !== null && now - last >= PROGRESS_EVERY_MS) {
      last = now;
      dispatch({ type: 'historiesProgress', text: latest });
    }
  });
  child.on('error', (e) =>
    dispatch({ type: 'historiesImported', turns: 0, problems: 0, failed: oneLine(e.message) }),
  );
  child.on('close', (code) => {
    try {
      const doc = JSON.parse(out) as { total?: { turns_added?: number; errors?: number } };
      dispatch({
        type: 'historiesImported',
        turns: Number(doc.total?.turns_added) || 0,
        problems: Number(doc.total?.errors) || 0,
        failed: null,
      });
    } catch {
      dispatch({
        type: 'historiesImported',
        turns: 0,
        problems: 0,
        failed: oneLine(err.split('\n')[0] || `exit ${code}`).replace(/^arborist: /, ''),
      });
    }
  });
}

/** `importing Claude Code: 12/271 files, 1,024 turns…` from one progress line, or null for any other line. */
export function progressText(line: string): string | null {
  let p: unknown;
  try {
    p = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof p !== 'object' || p === null || !('files_done' in p)) return null;
  const o = p as Record<string, unknown>;
  const n = (v: unknown) => (Number.isSafeInteger(v) ? (v as number) : 0).toLocaleString('en-US');
  const source = typeof o.source === 'string' ? oneLine(o.source).slice(0, 40) : '';
  return `importing ${source}${source === '' ? '' : ': '}${n(o.files_done)}/${n(o.files)} files, ${n(o.turns)} turns…`;
}
