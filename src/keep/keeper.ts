import { type FSWatcher, readdirSync, watch } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { lastLineEnded } from '../import/files.js';
import { ListingCache } from '../import/fingerprint.js';
import type { ImportProblem, SourceKind, SourceReader } from '../import/model.js';
import { emptyImportSummary, importFile } from '../import/run.js';
import { SOURCE_KINDS, SOURCES } from '../import/sources.js';
import { stopsImport, type UnitSummary } from '../import/writer.js';
import { ArboristError, parseBates, type Shard } from '../store/index.js';
import { type Fingerprint, fingerprint, sameFp, statOf } from './fingerprint.js';
import { type BatchReport, emptyBatchReport, type KeeperOptions, type KeeperStats } from './types.js';

/**
 * The keeper's engine (docs/keep.md): every findable source's files followed in one process. Folders are watched
 * with fs.watch (inotify, FSEvents, kqueue), at most `maxWatches` of them: the folders holding the files the
 * readers discover, the folders above them up to each source's root, and folders that appear under those (a new
 * project, a new day). A change to a known file marks it; anything else in a watched folder makes the source be
 * discovered again. A slow poll of every file (sizes and times) and a slower rediscovery catch what notifications
 * miss (NFS, containers, a full watch table); files in folders beyond the watch limit are polled faster.
 *
 * Each changed file goes through the import path (`importFile`, idempotent), in batches of at most `batchFiles`
 * files; the loop yields between batches, so a signal ends it after the current batch. Like `import --follow`, a
 * file still being written (a cut last line, an unfinished turn) waits until it has been quiet for `settleMs`: a
 * turn once stored never changes, so a keeper waits long rather than keep half an answer.
 *
 * Why this file is long (~630 lines): it is one state machine. Discovery, watches, notifications, polls and batches
 * all read and change the same maps (files, watchers, dirty, settle times); split apart they would pass that state
 * back and forth. What stands alone is elsewhere: the options and reports (types.ts), a file's cheap fingerprint
 * (fingerprint.ts), the lock, the log, the state file, the service files, and the process around it (run.ts).
 */

interface Source {
  kind: SourceKind;
  reader: SourceReader;
  roots: string[];
  /** Problems of the last discovery (folders that cannot be read). */
  problems: ImportProblem[];
  /** Folders seen appearing under watched ones: watched too, even while they hold no file yet. */
  extra: Set<string>;
  lastRescan: number;
  /** How long the last rediscovery took (wall clock, ms). */
  rescanCost: number;
  files: number;
  unwatched: number;
  /** Roots not there at the last discovery (a tool not installed yet): each poll looks whether one is now. */
  missing: string[];
}

interface FileState {
  source: Source;
  fp: Fingerprint | undefined;
  changedAt: number;
  settled: boolean;
  /** Read it at the next batch even when its fingerprint is unchanged (a -wal change, a locked shard). */
  force: boolean;
  /** The size at the last reading: a smaller file was truncated or replaced. */
  offset: number;
  /**
   * The other files its reader read with it at the last reading (SourceReader.inputs: a Claude Code session's
   * subagent files): a change to one of them, or a new file in their folders, is a change of this file.
   */
  inputs: string[];
}

/**
 * Rediscovery of one source at most once a second, and never more than a twentieth of the time (its last one's
 * duration times 20 apart): a tool writing its own logs or temporary files beside its history, in a watched folder,
 * costs the keeper at most about 5% of a core while it writes, nothing once it stops.
 */
const RESCAN_MIN_MS = 1000;
const RESCAN_SHARE = 20;
/** A newly seen folder is walked this deep for folders to watch (a `mkdir -p` of a new day: year/month/day). */
const NEW_FOLDER_DEPTH = 3;

function problemKey(p: ImportProblem): string {
  return `${p.file}\0${p.line}\0${p.reason}`;
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch {
    return []; // gone, or unreadable: the discovery says so
  }
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export class Keeper {
  readonly sources: Source[];
  private readonly files = new Map<string, FileState>();
  private readonly watchers = new Map<string, { w: FSWatcher; source: Source }>();
  private readonly dirty = new Set<string>();
  /** Files read with others (FileState.inputs), and their folders: which followed files they belong to. */
  private readonly inputOwners = new Map<string, Set<string>>();
  private readonly inputDirOwners = new Map<string, Set<string>>();
  private readonly rescanWanted = new Set<Source>();
  private readonly settleDue = new Map<string, number>();
  /** Turns each file's last reading left waiting (unfinished, or a cut last line) until the file is quiet. */
  private readonly waiting = new Map<string, number>();
  /** Problems of each file's last reading. */
  private readonly fileProblems = new Map<string, ImportProblem[]>();
  private readonly said = new Set<string>();
  private lastEvent = 0;
  private wake: (() => void) | undefined;
  private shardTrouble = '';
  private shardTroubleSince = '';
  private shardRetryAt = 0;
  /** Rediscoveries wanted wait until then (RESCAN_MIN_MS after the last one). */
  private rescanAt = 0;
  readonly stats: KeeperStats = {
    batches: 0,
    files_read: 0,
    turns_added: 0,
    sessions: 0,
    polls: 0,
    poll_cpu_ms: 0,
    rescans: 0,
    rescan_cpu_ms: 0,
    first_discovery_cpu_ms: 0,
  };

  constructor(
    private readonly shard: Shard,
    private readonly opts: KeeperOptions,
  ) {
    this.sources = SOURCE_KINDS.filter((k) => SOURCES[k].findable).map((kind) => {
      const reader = SOURCES[kind].reader({ sidechains: opts.sidechains });
      return {
        kind,
        reader,
        roots: reader.defaultPaths(opts.env),
        problems: [],
        extra: new Set<string>(),
        lastRescan: 0,
        rescanCost: 0,
        files: 0,
        unwatched: 0,
        missing: [],
      };
    });
  }

  get fileCount(): number {
    return this.files.size;
  }

  /** Folders under fs.watch (at the end of a run, how many there were). */
  get watchedCount(): number {
    return this.watchers.size > 0 ? this.watchers.size : this.watchedAtEnd;
  }

  private watchedAtEnd = 0;

  get unwatchedCount(): number {
    return this.sources.reduce((a, s) => a + s.unwatched, 0);
  }

  /** Why the shard takes no writes now, and since when (ISO 8601); undefined while it does. */
  get trouble(): { reason: string; since: string } | undefined {
    return this.shardTrouble === ''
      ? undefined
      : { reason: this.shardTrouble, since: this.shardTroubleSince };
  }

  /** Turns that wait until their files have been quiet for --settle (an unfinished turn is never stored in part). */
  get turnsWaiting(): number {
    let n = 0;
    for (const w of this.waiting.values()) n += w;
    return n;
  }

  /** Files and folders whose last reading had problems. */
  problems(): ImportProblem[] {
    const out: ImportProblem[] = [];
    for (const s of this.sources) out.push(...s.problems);
    for (const ps of this.fileProblems.values()) out.push(...ps);
    return out;
  }

  /** Runs until the signal: discovers everything, imports it, then follows. */
  async run(): Promise<KeeperStats> {
    const { signal } = this.opts;
    const onAbort = () => this.wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (const s of this.sources) this.rescan(s);
      // The first discovery is the start's cost, not the idle cost the counters are for (bench/keep.ts).
      this.stats.first_discovery_cpu_ms = this.stats.rescan_cpu_ms;
      this.stats.rescans = 0;
      this.stats.rescan_cpu_ms = 0;
      this.opts.onReady?.();
      const t0 = Date.now();
      let nextPoll = t0 + this.pollInterval();
      let nextRescan = t0 + this.opts.rescanMs;
      let lastFullPoll = t0;
      while (!signal.aborted) {
        const now = Date.now();
        if (now >= nextPoll) {
          // Every file at the slow poll; between those, only files in folders nobody watches.
          const all = now - lastFullPoll >= this.opts.pollMs;
          if (all) lastFullPoll = now;
          this.poll(all);
          nextPoll = now + this.pollInterval();
        }
        if (now >= nextRescan) {
          for (const s of this.sources) this.rescanWanted.add(s);
          nextRescan = now + this.opts.rescanMs;
        }
        for (const [f, due] of this.settleDue)
          if (due <= now) {
            this.settleDue.delete(f);
            this.dirty.add(f);
          }
        const work = this.dirty.size > 0 || (this.rescanWanted.size > 0 && now >= this.rescanAt);
        if (work && now - this.lastEvent >= this.opts.debounceMs && now >= this.shardRetryAt) {
          this.batch();
          await new Promise((r) => setImmediate(r)); // signals are handled between batches
          continue;
        }
        let next = Math.min(nextPoll, nextRescan, ...this.settleDue.values());
        if (this.rescanWanted.size > 0) next = Math.min(next, Math.max(this.rescanAt, now + 1));
        if (work) next = Math.min(next, Math.max(this.lastEvent + this.opts.debounceMs, this.shardRetryAt));
        // At most an hour at a time: setTimeout takes no more than 2^31-1 ms (a longer one fires at once).
        await this.sleep(Math.min(Math.max(1, next - now), 3_600_000));
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.watchedAtEnd = this.watchers.size;
      for (const { w } of this.watchers.values()) w.close();
      this.watchers.clear();
    }
    return this.stats;
  }

  private pollInterval(): number {
    return this.unwatchedCount > 0 ? Math.min(this.opts.fastPollMs, this.opts.pollMs) : this.opts.pollMs;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(t);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }

  /** Something happened: a batch after the debounce. */
  private touch(): void {
    this.lastEvent = Date.now();
    this.wake?.();
  }

  /** Sizes and times of the files (all, or those in folders nobody watches): a changed one is marked. */
  private poll(all: boolean): void {
    const c0 = cpuMs();
    let marked = false;
    const looked = new Map<string, string>();
    for (const [file, state] of this.files) {
      if (!all && this.watchers.has(dirname(file))) continue;
      const st = statOf(file);
      if (!st || !sameFp(state.fp, fingerprint(file, st, state.inputs, looked))) {
        this.dirty.add(file);
        marked = true;
      }
    }
    // A root that was not there at the last discovery (a tool installed since, `~/.codex` made by its first run):
    // its source is discovered again now, not at the hourly rediscovery. A stat a missing root, a poll.
    if (all)
      for (const src of this.sources)
        if (src.missing.some((r) => statOf(r) !== undefined)) {
          this.rescanWanted.add(src);
          marked = true;
        }
    this.stats.polls++;
    this.stats.poll_cpu_ms += cpuMs() - c0;
    if (marked) this.touch();
  }

  /** Discovers a source's files again, and sets the watches on its folders. */
  private rescan(s: Source): void {
    const c0 = cpuMs();
    const t0 = performance.now();
    s.lastRescan = Date.now();
    const problems: ImportProblem[] = [];
    const found: string[] = [];
    const wanted = new Set<string>();
    s.missing = [];
    for (const root of s.roots) {
      const st = statOf(root);
      if (!st) {
        s.missing.push(root);
        continue;
      }
      const top = st.isDirectory() ? root : dirname(root);
      wanted.add(top);
      try {
        const parents = new Set<string>();
        for (const f of s.reader.discover(root, problems)) {
          found.push(f);
          // The file's folder and every folder up to the root: a new sibling anywhere on the way is seen.
          // (a folder already wanted has its own chain wanted: stop there).
          const dir = dirname(f);
          if (dir.startsWith(top + sep)) parents.add(dirname(dir));
          for (let d = dir; d.startsWith(top + sep) && !wanted.has(d); d = dirname(d)) wanted.add(d);
        }
        // The folders beside those holding histories, empty ones too (a project whose transcripts the tool's
        // cleanup removed): a new session there is seen at once, not at the next rediscovery.
        for (const p of parents) for (const d of subfolders(p)) wanted.add(d);
      } catch (e) {
        problems.push({ file: root, line: 0, reason: (e as Error).message.split('\n')[0] });
      }
    }
    for (const d of s.extra) {
      if (statOf(d)?.isDirectory()) wanted.add(d);
      else s.extra.delete(d);
    }
    s.problems = problems;
    this.setWatches(s, wanted);
    const seen = new Set(found);
    for (const f of found)
      if (!this.files.has(f)) {
        this.files.set(f, {
          source: s,
          fp: undefined,
          changedAt: 0,
          settled: false,
          force: false,
          offset: 0,
          inputs: [],
        });
        this.dirty.add(f);
      }
    for (const [f, state] of this.files)
      if (state.source === s && !seen.has(f) && !statOf(f)) this.dirty.add(f); // the batch says it is gone
    s.files = found.length;
    s.rescanCost = performance.now() - t0;
    this.stats.rescans++;
    this.stats.rescan_cpu_ms += cpuMs() - c0;
  }

  private setWatches(s: Source, wanted: Set<string>): void {
    for (const [d, w] of this.watchers)
      if (w.source === s && !wanted.has(d)) {
        w.w.close();
        this.watchers.delete(d);
      }
    let unwatched = 0;
    for (const d of wanted) {
      if (this.watchers.has(d)) continue;
      if (!this.watchFolder(s, d)) unwatched++;
    }
    s.unwatched = unwatched;
  }

  /** Puts `d` under fs.watch; false when it cannot be (beyond the limit, or refused by the system). */
  private watchFolder(s: Source, d: string): boolean {
    if (this.watchers.size >= this.opts.maxWatches) return false;
    try {
      const w = watch(d, { persistent: true }, (_event, name) => this.onEvent(s, d, name));
      // A folder removed, or a watch the system takes back: forget it; the next discovery decides again.
      w.on('error', () => {
        w.close();
        if (this.watchers.get(d)?.w === w) this.watchers.delete(d);
        this.rescanWanted.add(s);
        this.touch();
      });
      this.watchers.set(d, { w, source: s });
      return true;
    } catch {
      return false; // ENOSPC (the watch table is full), EMFILE, or a file system without notifications
    }
  }

  /**
   * Records the files read with `file` (its reader's inputs) and watches their folders under the source's roots
   * (kept as its extra folders, so a rediscovery keeps them). Files outside the roots (Gemini's projects.json) are
   * left to the poll: watching the tool's whole home would mark on every write of its settings.
   */
  private setInputs(file: string, state: FileState, listings: ListingCache): void {
    const s = state.source;
    let inputs: string[] = [];
    try {
      inputs = s.reader.inputs?.(file, listings)?.files.filter((f) => f !== file) ?? [];
    } catch {
      // a reader that cannot name them now: the file's own changes still count
    }
    this.linkInputs(file, state, inputs);
    for (const f of inputs) {
      const d = dirname(f);
      const under = s.roots.some((r) => d === r || d.startsWith(r + sep));
      if (under && !this.watchers.has(d) && statOf(d)?.isDirectory()) {
        s.extra.add(d);
        this.watchFolder(s, d);
      }
    }
  }

  /** `file`'s inputs are now `inputs` (none: it is gone). */
  private linkInputs(file: string, state: FileState, inputs: string[]): void {
    const unlink = (map: Map<string, Set<string>>, key: string) => {
      const owners = map.get(key);
      owners?.delete(file);
      if (owners?.size === 0) map.delete(key);
    };
    for (const f of state.inputs) {
      unlink(this.inputOwners, f);
      unlink(this.inputDirOwners, dirname(f));
    }
    state.inputs = inputs;
    const link = (map: Map<string, Set<string>>, key: string) => {
      const owners = map.get(key) ?? new Set<string>();
      owners.add(file);
      map.set(key, owners);
    };
    for (const f of inputs) {
      link(this.inputOwners, f);
      link(this.inputDirOwners, dirname(f));
    }
  }

  /** Marks the followed files that `full` (or a file in its folder `dir`) is read with. */
  private markOwners(full: string, dir: string): void {
    const owners = this.inputOwners.get(full) ?? this.inputDirOwners.get(dir);
    if (!owners) return;
    for (const o of owners) {
      const st = this.files.get(o);
      if (!st) continue;
      st.force = true; // its own size and time have not moved
      this.dirty.add(o);
    }
  }

  private onEvent(s: Source, dir: string, name: string | Buffer | null): void {
    if (name === null) {
      this.rescanWanted.add(s);
      this.touch();
      return;
    }
    const full = join(dir, name.toString());
    const known = this.files.has(full) ? full : full.replace(/-(wal|shm|journal)$/, '');
    const state = this.files.get(known);
    if (state) {
      this.dirty.add(known);
      if (known !== full) state.force = true; // a SQLite file's -wal moved: its own size and time may not
    } else {
      // A file read with followed ones (a subagent's transcript), or a new file beside those: they are read again.
      this.markOwners(full, dir);
      // Anything else new (a file or folder: a new project, a new day, a new session beside subagent files): the
      // source is discovered again.
      if (!this.inputOwners.has(full)) {
        const st = statOf(full);
        if (st?.isDirectory()) this.addFolder(s, full, 0);
        this.rescanWanted.add(s);
      }
    }
    this.touch();
  }

  private addFolder(s: Source, dir: string, depth: number): void {
    if (s.extra.has(dir) || s.extra.size >= this.opts.maxWatches) return;
    s.extra.add(dir);
    if (depth >= NEW_FOLDER_DEPTH) return;
    try {
      for (const e of readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) this.addFolder(s, join(dir, e.name), depth + 1);
    } catch {
      // gone again, or unreadable: the discovery says so
    }
  }

  /** One batch: the sources to discover again, then at most `batchFiles` marked files. */
  private batch(): void {
    // A shard deleted (or replaced) under the keeper: SQLite would go on writing the unlinked file, and every turn
    // kept from then on would be in a file nobody can open. Stopping says so; started again (a service restarts a
    // keeper that failed), the keeper makes the shard anew and keeps every turn the histories still hold.
    if (this.shard.detached())
      throw new ArboristError(
        'shard',
        `the shard ${this.shard.path} was deleted or replaced while the keeper ran; it stops rather than keep turns in a file nobody can open (start it again: it makes the shard anew and keeps every turn the histories still hold)`,
      );
    const now = Date.now();
    const folderProblems: ImportProblem[] = [];
    this.rescanAt = Number.POSITIVE_INFINITY;
    for (const s of [...this.rescanWanted]) {
      const gap = Math.max(RESCAN_MIN_MS, s.rescanCost * RESCAN_SHARE);
      if (now - s.lastRescan < gap) {
        this.rescanAt = Math.min(this.rescanAt, s.lastRescan + gap);
        continue;
      }
      this.rescanWanted.delete(s);
      this.rescan(s);
      folderProblems.push(...s.problems);
    }
    if (this.rescanWanted.size === 0) this.rescanAt = 0;
    const report = emptyBatchReport();
    for (const p of folderProblems) this.tellProblem(p, report);
    let taken = 0;
    for (const file of [...this.dirty]) {
      if (taken >= this.opts.batchFiles) break;
      this.dirty.delete(file);
      const read = this.readFile(file, report);
      if (read === 'stop') break;
      if (read) {
        taken++;
        if (this.opts.delayMs)
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, this.opts.delayMs);
      }
    }
    // Our connections leave checkpoints to quiet moments (Shard.idle): after a batch that wrote is one, so a keeper
    // running for weeks keeps the WAL small. Cheap when there is nothing to do; a shard busy elsewhere waits.
    if (report.files > 0) {
      try {
        this.shard.idle();
      } catch {
        // housekeeping only: a shard in trouble says so at the next write, through readFile
      }
    }
    this.stats.batches++;
    this.stats.files_read += report.files;
    this.stats.turns_added += report.turns_added;
    this.stats.sessions += report.sessions;
    this.opts.onBatch(report);
  }

  /** Reads one marked file if it changed (or waited long enough); false when there was nothing to read. */
  private readFile(file: string, report: BatchReport): boolean | 'stop' {
    const state = this.files.get(file);
    if (!state) return false;
    const now = Date.now();
    const st = statOf(file);
    if (!st) {
      this.linkInputs(file, state, []);
      this.files.delete(file);
      this.settleDue.delete(file);
      this.fileProblems.delete(file);
      this.waiting.delete(file);
      report.gone.push(file);
      return false;
    }
    // The files read with it, named now (before the read, as the import's own fingerprint does): a fingerprint
    // taken with them stays what the next poll sees, so no file is read again only because its inputs were learnt.
    const listings = new ListingCache();
    this.setInputs(file, state, listings);
    const fp = fingerprint(file, st, state.inputs);
    const fresh = state.fp === undefined;
    const changed = !sameFp(state.fp, fp);
    if (changed) {
      state.fp = fp;
      // Seen for the first time: it changed when its time says (a file untouched for a day is quiet already).
      state.changedAt = fresh ? Math.min(now, st.mtimeMs) : now;
      state.settled = false;
    }
    const quiet = now - state.changedAt >= this.opts.settleMs;
    if (!changed && !state.force && (state.settled || !quiet)) return false;
    // A JSONL line still being written: wait for its newline (or for the file to be quiet).
    if (/\.jsonl(\.|$)/.test(file) && !quiet && !lastLineEnded(file, st.size)) {
      this.settleDue.set(file, state.changedAt + this.opts.settleMs);
      return false;
    }
    if (st.size < state.offset) report.truncated.push(file);
    const one = emptyImportSummary();
    try {
      const onUnit = (u: UnitSummary) => {
        for (const b of u.added) {
          const sid = parseBates(b)?.sid;
          if (sid !== undefined) report.by_session.set(sid, (report.by_session.get(sid) ?? 0) + 1);
        }
      };
      importFile(this.shard, state.source.reader, file, { waitForIncomplete: !quiet, listings, onUnit }, one);
    } catch (err) {
      if (!stopsImport(err)) throw err;
      // The shard is locked past its busy timeout, full or read-only: this file again later, the others with it.
      const msg = (err as Error).message;
      // Now, not the batch's start: the write waited out the busy timeout first, as the log line's time says.
      if (this.shardTrouble === '') this.shardTroubleSince = new Date().toISOString();
      const news = msg !== this.shardTrouble;
      this.shardTrouble = msg;
      if (news) this.opts.onNote(`cannot write the shard now (${msg}); trying again`);
      state.force = true;
      this.dirty.add(file);
      this.shardRetryAt = now + 1000;
      return 'stop';
    }
    if (this.shardTrouble !== '') {
      this.shardTrouble = '';
      this.opts.onNote('the shard takes writes again');
    }
    state.force = false;
    state.offset = st.size;
    if (quiet) {
      state.settled = true;
      this.settleDue.delete(file);
    } else this.settleDue.set(file, state.changedAt + this.opts.settleMs);
    report.files++;
    report.turns_added += one.turns_added;
    report.sessions += one.sessions;
    report.turns_waiting += one.turns_waiting;
    if (one.turns_waiting > 0) this.waiting.set(file, one.turns_waiting);
    else this.waiting.delete(file);
    if (one.turns_added > 0) {
      const k = state.source.kind;
      report.by_source[k] = (report.by_source[k] ?? 0) + one.turns_added;
    }
    if (one.problems.length > 0) this.fileProblems.set(file, one.problems);
    else this.fileProblems.delete(file);
    for (const p of one.problems) this.tellProblem(p, report);
    return true;
  }

  /** A problem goes into the batch's report once, however often the file is read again. */
  private tellProblem(p: ImportProblem, report: BatchReport): void {
    const key = problemKey(p);
    if (this.said.has(key)) return;
    this.said.add(key);
    report.problems.push(p);
  }
}
