/**
 * The state check (`arborist verify`: every hash recomputed and the state compared with what the audit chain
 * recorded), run beside the TUI so that damage the chain check alone cannot see (a turn edited and rehashed, a turn
 * deleted, a forged archive) turns the status bar BROKEN too. It runs as a separate low-priority process, not a
 * thread: on a 1,000,000-turn shard it reads every turn and needs a few hundred MB for seconds, which must count
 * against neither a key press nor the TUI's own memory. At most one runs; one more may wait.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import type { Action } from '../core/actions.js';
import type { StateResult } from '../core/state.js';

/** The verify command's JSON document as one StateResult. */
export function summariseVerify(doc: unknown): StateResult {
  const d = (doc ?? {}) as {
    ok?: unknown;
    damaged?: unknown;
    reason?: unknown;
    mismatches?: unknown;
    sessions?: unknown;
    archives?: unknown;
    problems?: { kind: string; id: string; detail: string }[];
  };
  if (d.ok === true) return { ok: true, summary: null, problems: 0 };
  const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : []);
  const problems = Array.isArray(d.problems) ? d.problems : [];
  const count =
    list(d.mismatches).length + list(d.sessions).length + list(d.archives).length + problems.length;
  let summary: string;
  if (d.damaged === true) summary = String(d.reason ?? 'the shard is damaged');
  else if (problems.length > 0) summary = `${problems[0].kind} ${problems[0].id}: ${problems[0].detail}`;
  else if (list(d.mismatches).length > 0) summary = `turn ${list(d.mismatches)[0]} differs from its hashes`;
  else if (list(d.sessions).length > 0) summary = `session ${list(d.sessions)[0]}: its root differs`;
  else if (list(d.archives).length > 0) summary = `archive ${list(d.archives)[0]} is damaged`;
  else summary = 'verify found damage';
  return { ok: false, summary, problems: Math.max(1, count) };
}

/** Output past this is not a verify report of ours. */
const MAX_OUTPUT = 64 * 1024 * 1024;

export class StateChecker {
  private child: ChildProcess | null = null;
  private queued = false;
  private closed = false;
  lastStartedAt = 0;

  /** `command`: argv that runs arborist (the TUI passes its own launcher); null turns the check off (tests). */
  constructor(
    private readonly dbPath: string,
    private readonly dispatch: (a: Action) => void,
    private readonly command: readonly string[] | null,
  ) {}

  check(): void {
    if (!this.command || this.closed) return;
    if (this.child) {
      this.queued = true;
      return;
    }
    this.lastStartedAt = Date.now();
    const [cmd, ...args] = this.command;
    const child = spawn(cmd, [...args, 'verify', '--json', '--db', this.dbPath], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    this.child = child;
    try {
      if (child.pid !== undefined) setPriority(child.pid, 19);
    } catch {
      // not allowed: it runs at normal priority
    }
    const parts: Buffer[] = [];
    let size = 0;
    child.stdout?.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_OUTPUT) parts.push(b);
    });
    child.on('error', () => this.done(null));
    child.on('close', () => {
      let doc: unknown = null;
      try {
        doc = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        doc = null;
      }
      this.done(doc);
    });
  }

  private done(doc: unknown): void {
    if (!this.child) return;
    this.child = null;
    if (this.closed) return;
    // No readable report (the check could not run, or was killed): say nothing rather than guess either way.
    const usable = doc !== null && typeof doc === 'object' && !('error' in doc);
    if (usable) this.dispatch({ type: 'stateDone', result: summariseVerify(doc) });
    if (this.queued) {
      this.queued = false;
      this.check();
    }
  }

  close(): void {
    this.closed = true;
    this.child?.kill('SIGKILL');
    this.child = null;
  }
}
