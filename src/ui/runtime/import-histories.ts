/**
 * The first start's import (the `i` key on an empty shard): runs `arborist import KIND PATH --json` for each
 * history found, one after the other, in child processes of their own, so the screen keeps answering (and a
 * crash of an import cannot take the TUI with it). Each import commits file by file: the TUI's data_version poll
 * shows the sessions as they arrive.
 */
import { spawn } from 'node:child_process';
import type { Action } from '../core/actions.js';
import type { HistoryOffer } from '../core/state.js';

export function importHistories(
  command: readonly string[] | null,
  dbPath: string,
  histories: HistoryOffer[],
  dispatch: (a: Action) => void,
): void {
  if (command === null || command.length === 0) {
    dispatch({ type: 'historiesImported', turns: 0, problems: 0, failed: 'no arborist command to run' });
    return;
  }
  let turns = 0;
  let problems = 0;
  const next = (i: number) => {
    if (i >= histories.length) {
      dispatch({ type: 'historiesImported', turns, problems, failed: null });
      return;
    }
    const h = histories[i];
    const child = spawn(
      command[0],
      [...command.slice(1), 'import', h.kind, h.path, '--db', dbPath, '--json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      if (out.length < 64 * 1024 * 1024) out += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4096) err += d.toString('utf8');
    });
    child.on('error', (e) =>
      dispatch({ type: 'historiesImported', turns, problems, failed: e.message.split('\n')[0] }),
    );
    child.on('close', (code) => {
      try {
        const doc = JSON.parse(out) as { turns_added?: number; errors?: number };
        turns += Number(doc.turns_added) || 0;
        problems += Number(doc.errors) || 0;
      } catch {
        dispatch({
          type: 'historiesImported',
          turns,
          problems,
          failed: (err.split('\n')[0] || `exit ${code}`).replace(/^arborist: /, ''),
        });
        return;
      }
      next(i + 1);
    });
  };
  next(0);
}
