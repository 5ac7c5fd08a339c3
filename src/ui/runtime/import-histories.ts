/**
 * The first start's import (the `i` key on an empty shard): one child `arborist import --json --progress-json`
 * (child.ts) for every history found, an import with no kind reading each agent's where the first start found it.
 * Its progress lines go to the status bar. It commits file by file: the browser's data_version poll shows the
 * sessions as they arrive. (One child a source cost a process start each: 1.4 s against 0.35 s for 62 turns.)
 */
import { oneLine } from '../../text/sanitize.js';
import type { Action } from '../core/actions.js';
import { IMPORTING } from '../core/selectors.js';
import { runWithProgress } from './child.js';

export function importHistories(
  command: readonly string[] | null,
  dbPath: string,
  dispatch: (a: Action) => void,
): void {
  if (command === null || command.length === 0) {
    dispatch({ type: 'historiesImported', turns: 0, problems: 0, failed: 'no arborist command to run' });
    return;
  }
  runWithProgress([...command, 'import', '--db', dbPath, '--json', '--progress-json'], {
    progress: progressText,
    onProgress: (text) => dispatch({ type: 'historiesProgress', text }),
    onError: (e) =>
      dispatch({ type: 'historiesImported', turns: 0, problems: 0, failed: oneLine(e.message) }),
    onEnd: ({ out, errText, code }) => {
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
          failed: oneLine(errText.split('\n')[0] || `exit ${code}`).replace(/^arborist: /, ''),
        });
      }
    },
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
  return `${IMPORTING}${source}${source === '' ? '' : ': '}${n(o.files_done)}/${n(o.files)} files, ${n(o.turns)} turns…`;
}
