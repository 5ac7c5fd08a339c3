/**
 * `S`: runs `arborist sync --json --progress-json` in a child process (git, the checks and the import all happen
 * there, so the screen keeps answering and a failure cannot take the browser with it). Its stderr carries one JSON
 * progress line a step (docs/sync.md); any other stderr line is an error's text. Its stdout is the report (exit
 * 0, or 1 when a host was refused or a session of one held back); the summary line comes from it. Quitting the browser stops a running sync (SIGTERM:
 * what it committed stays, the next sync goes on from there).
 */
import type { ChildProcess } from 'node:child_process';
import { oneLine } from '../../text/sanitize.js';
import type { Action } from '../core/actions.js';
import type { SyncProgress } from '../features/sync/model.js';
import { runWithProgress } from './child.js';

export class SyncRunner {
  private child: ChildProcess | null = null;

  constructor(
    private readonly command: readonly string[] | null,
    private readonly dbPath: string,
    private readonly dispatch: (a: Action) => void,
  ) {}

  start(): void {
    if (this.child) return;
    if (this.command === null || this.command.length === 0) {
      this.dispatch({ type: 'syncDone', summary: '', error: 'no arborist command to run', changed: false });
      return;
    }
    const child = runWithProgress(
      [...this.command, 'sync', '--db', this.dbPath, '--json', '--progress-json'],
      {
        progress: progressOf,
        onProgress: (progress) => this.dispatch({ type: 'syncProgress', progress }),
        onError: (e) => {
          this.child = null;
          this.dispatch({ type: 'syncDone', summary: '', error: oneLine(e.message), changed: false });
        },
        onEnd: ({ out, errText, code, signal }) => {
          if (this.child !== child) return;
          this.child = null;
          // The report comes on stdout with exit 0, and with exit 1 when a host was refused or a session of one held
          // back (a check found damage).
          const r = code === 0 || code === 1 ? reportOf(out) : null;
          if (r) {
            this.dispatch({
              type: 'syncDone',
              summary: r.summary,
              error: r.refused ? `${r.summary}; ${r.refused} (arborist sync says why)` : null,
              changed: r.changed,
            });
            return;
          }
          // No remote at all: sync is not set up, which is said as information, not as a failure. `sync --json` says
          // it as its one not_found error (with no NAME, nothing else of it is not_found).
          if (code === 2 && notSetUp(out)) {
            this.dispatch({ type: 'syncDone', summary: '', error: null, changed: false, notSetUp: true });
            return;
          }
          const why = errText || (signal ? `stopped by ${signal}` : `exit ${code}`);
          this.dispatch({
            type: 'syncDone',
            summary: '',
            error: oneLine(why.replace(/^arborist: /, '')),
            changed: true,
          });
        },
      },
    );
    this.child = child;
  }

  close(): void {
    this.child?.kill('SIGTERM');
    this.child = null;
  }
}

/** A progress line, or null for any other line (an error's text). Nothing in it is trusted to have its type. */
function progressOf(line: string): SyncProgress | null {
  if (!line.startsWith('{')) return null;
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (typeof v.phase !== 'string') return null;
    const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
    return { phase: oneLine(v.phase).slice(0, 40), done: num(v.done), total: num(v.total) };
  } catch {
    return null;
  }
}

/** True when stdout is `sync --json`'s error for a shard with no sync remote (kind not_found). */
export function notSetUp(out: string): boolean {
  try {
    const v = JSON.parse(out) as { kind?: unknown } | null;
    return v?.kind === 'not_found';
  } catch {
    return false;
  }
}

/**
 * The report (`arborist sync --json`: docs/sync.md): its summary line, the hosts refused, and whether turns arrived
 * (then the browser reloads what it shows). Null when stdout is not a report.
 */
export function reportOf(out: string): { summary: string; refused: string; changed: boolean } | null {
  let v: unknown;
  try {
    v = JSON.parse(out);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || typeof (v as { summary?: unknown }).summary !== 'string')
    return null;
  const doc = v as { summary: string; remotes?: unknown };
  let pulled = 0;
  const refused: string[] = [];
  const partial: string[] = [];
  for (const r of Array.isArray(doc.remotes) ? doc.remotes : []) {
    const p = (r as { pulled?: { turns?: unknown; hosts?: unknown } } | null)?.pulled;
    if (typeof p?.turns === 'number') pulled += p.turns;
    for (const h of Array.isArray(p?.hosts) ? p.hosts : []) {
      const x = h as { host?: unknown; status?: unknown } | null;
      if (typeof x?.host !== 'string') continue;
      if (x.status === 'refused') refused.push(x.host);
      else if (x.status === 'partial') partial.push(x.host);
    }
  }
  const hosts = (list: string[], what: string) =>
    list.length === 0 ? [] : [`${what} ${list.length === 1 ? 'host' : 'hosts'} ${list.join(', ')}`];
  const said = [...hosts(refused, 'refused'), ...hosts(partial, 'held back sessions of')].join('; ');
  return { summary: oneLine(doc.summary), refused: oneLine(said), changed: pulled > 0 };
}
