import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { arboristHome } from '../config/index.js';
import type { Shard } from '../store/index.js';
import { counted } from '../text/format.js';
import { Keeper } from './keeper.js';
import { acquireLock, KEEPER_TITLE, LockHeld, type LockInfo, releaseLock } from './lock.js';
import { KeepLog, LOG_MAX_BYTES } from './log.js';
import { type KeeperState, localDay, writeState } from './state.js';
import type { BatchReport, KeeperOptions, KeeperStats } from './types.js';

/**
 * `arborist keep` around its engine: the lock (one keeper per shard), the log, the state file status reads, and the
 * words of each line. The CLI gives it a shard, a signal and somewhere to print.
 */

export { LockHeld };

export function keepLogPath(env: NodeJS.ProcessEnv): string {
  return join(arboristHome(env), 'keep.log');
}

/** Problems listed in the state file (status shows them); the count says how many there are in all. */
const STATE_PROBLEMS = 20;

export interface KeepRun {
  dbPath: string;
  engine: Omit<KeeperOptions, 'onBatch' | 'onNote'>;
  /** Each log line, as written (one line, sanitised), for the terminal. */
  print: (line: string) => void;
}

export interface KeepSummary extends KeeperStats {
  started: string;
  stopped: string;
  files: number;
}

/** A batch's news (a file truncated or gone, a problem) said on its line when this many or fewer. */
const NEWS_ON_LINE = 2;
/** The lines after a batch's line, at most: with the one on it, ten, as keep --status lists; then how many more. */
const NEWS_LINES = 9;

/**
 * A batch's lines for the log (and the terminal): the first says what it added and its news; when that is more
 * than NEWS_ON_LINE items, how many of each and the first (a problem's line alone can be 200 columns); the rest
 * follow, a line each, and past NEWS_LINES one says how many more (as keep --status does). Joined into one line,
 * the first five problems of a batch and "N more problems" made a line of a thousand columns.
 */
export function batchLines(b: BatchReport): string[] {
  const parts: string[] = [];
  if (b.turns_added > 0) {
    const by = Object.entries(b.by_source)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    parts.push(`+${counted(b.turns_added, 'turn')} (${by})`);
  }
  if (b.sessions > 0) parts.push(`${counted(b.sessions, 'new session')}`);
  const news = [
    ...b.truncated.map((f) => `${f} is shorter than when last read (truncated or replaced)`),
    ...b.gone.map((f) => `${f} is gone; the shard keeps every turn it held`),
    ...b.problems.map((p) => `problem ${p.file}:${p.line}: ${p.reason}`),
  ];
  if (news.length <= NEWS_ON_LINE) {
    parts.push(...news);
    return parts.length > 0 ? [parts.join('; ')] : [];
  }
  const counts = [
    b.truncated.length > 0 ? `${counted(b.truncated.length, 'file')} truncated` : '',
    b.gone.length > 0 ? `${counted(b.gone.length, 'file')} gone` : '',
    b.problems.length > 0 ? counted(b.problems.length, 'problem') : '',
  ].filter((c) => c !== '');
  parts.push(counts.join(', '), news[0]);
  const after = news.slice(1, 1 + NEWS_LINES).map((n) => `  ${n}`);
  const rest = news.length - 1 - after.length;
  if (rest > 0) {
    const problems = Math.min(rest, b.problems.length);
    // keep --status's words: an import of the same files lists every problem.
    after.push(`  and ${rest} more${problems > 0 ? ' (`arborist import` lists every one)' : ''}`);
  }
  return [parts.join('; '), ...after];
}

/** Of the turns counted by session, those whose session is in the archive tier now; `before` when the shard cannot say. */
function archivedOf(shard: Shard, bySession: ReadonlyMap<string, number>, before: number): number {
  try {
    let n = 0;
    for (const [sid, turns] of bySession) if (shard.isArchivedSid(sid)) n += turns;
    return n;
  } catch {
    return before; // the shard in trouble: said by the next write; the count waits for it
  }
}

export async function runKeeper(shard: Shard, run: KeepRun): Promise<KeepSummary> {
  const { dbPath, engine, print } = run;
  const started = new Date().toISOString();
  process.title = KEEPER_TITLE;
  mkdirSync(dirname(dbPath), { recursive: true });
  const lock: LockInfo = { pid: process.pid, started, shard: dbPath };
  acquireLock(dbPath, lock);
  const maxLog = Number(engine.env.ARBORIST_KEEP_LOG_MAX) || LOG_MAX_BYTES;
  const log = new KeepLog(keepLogPath(engine.env), maxLog);
  const say = (text: string) => print(log.line(text));
  let lastImport: string | null = null;
  let day = localDay(new Date());
  let today = 0;
  let todayArchived = 0;
  /** Today's turns by session, to ask which are in the archive tier now (`turns_today_archived`). */
  const todayBySession = new Map<string, number>();
  let keeper: Keeper | undefined;
  const state = (stopped: string | null): KeeperState => {
    const problems = keeper?.problems() ?? [];
    return {
      pid: process.pid,
      started,
      updated: new Date().toISOString(),
      last_import: lastImport,
      day,
      turns_today: today,
      turns_today_archived: todayArchived,
      turns_added: keeper?.stats.turns_added ?? 0,
      files: keeper?.fileCount ?? 0,
      watched: keeper?.watchedCount ?? 0,
      unwatched: keeper?.unwatchedCount ?? 0,
      sources: (keeper?.sources ?? []).map((s) => ({ kind: s.kind, paths: s.roots, files: s.files })),
      problems: problems.slice(0, STATE_PROBLEMS).map((p) => ({ file: p.file, reason: p.reason })),
      problem_count: problems.length,
      turns_waiting: keeper?.turnsWaiting ?? 0,
      settle_ms: engine.settleMs,
      trouble: keeper?.trouble?.reason ?? null,
      trouble_since: keeper?.trouble?.since ?? null,
      stopped,
    };
  };
  let savedWaiting = 0;
  const save = (stopped: string | null = null) => {
    savedWaiting = keeper?.turnsWaiting ?? 0;
    try {
      writeState(dbPath, state(stopped));
    } catch {
      // status is told less; the turns are what matter
    }
  };
  try {
    keeper = new Keeper(shard, {
      ...engine,
      // A note says the shard stopped or started taking writes again: status tells it too.
      onNote: (text) => {
        say(text);
        save();
      },
      onReady: () => {
        const k = keeper!;
        const found = k.sources
          .filter((s) => s.files > 0)
          .map((s) => `${s.kind} ${counted(s.files, 'file')}`);
        const beyond =
          k.unwatchedCount > 0 ? ` (${k.unwatchedCount} more beyond the watch limit, polled)` : '';
        say(
          `following ${found.length > 0 ? found.join(', ') : 'no history yet'}; ${counted(k.watchedCount, 'folder')} watched${beyond}`,
        );
        save();
      },
      onBatch: (b) => {
        const now = new Date();
        const d = localDay(now);
        if (d !== day) {
          day = d;
          today = 0;
          todayArchived = 0;
          todayBySession.clear();
        }
        today += b.turns_added;
        for (const [sid, n] of b.by_session) todayBySession.set(sid, (todayBySession.get(sid) ?? 0) + n);
        // Asked again after each batch that read anything: an import archives a session its agent reset or
        // deleted (OpenClaw), and brings one back when an entry names it, in this batch's files or a later one's.
        const archivedBefore = todayArchived;
        if (b.files > 0) todayArchived = archivedOf(shard, todayBySession, todayArchived);
        if (b.turns_added > 0) lastImport = now.toISOString();
        const lines = batchLines(b);
        for (const line of lines) say(line);
        // Status says how many turns wait for their files to be quiet: saved when that changes too.
        if (lines.length > 0 || keeper!.turnsWaiting !== savedWaiting || todayArchived !== archivedBefore)
          save();
      },
    });
    say(`keeper ${process.pid} started on ${dbPath}`);
    let stats: KeeperStats;
    try {
      stats = await keeper.run();
    } catch (e) {
      // Said in the log too: a keeper run as a service has no terminal to say it on.
      say(`keeper ${process.pid} stopped: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
    const summary: KeepSummary = {
      ...stats,
      started,
      stopped: new Date().toISOString(),
      files: keeper.fileCount,
    };
    say(
      `keeper ${process.pid} stopped: ${counted(stats.turns_added, 'turn')} kept ` +
        `(${counted(stats.sessions, 'new session')}) from ${counted(stats.files_read, 'file reading')} in ` +
        `${counted(stats.batches, 'batch', 'batches')}; ${counted(keeper.fileCount, 'file')} followed, ` +
        `${counted(keeper.watchedCount, 'folder')} watched`,
    );
    save(summary.stopped);
    return summary;
  } finally {
    releaseLock(dbPath, process.pid);
  }
}
