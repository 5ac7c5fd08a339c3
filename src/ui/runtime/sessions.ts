/**
 * The one place that knows a session may be archived: the tree asks for sessions, outlines, paths, titles and
 * branch points alike, and gets them from the live tables or, for a session shown as archived, from its archive
 * body (read-only). Which sessions are archived is known from the state: only those the tree shows are read.
 */
import {
  agentOf,
  listArchives,
  type SessionSource as Mapping,
  parseBates,
  projectOf,
  type Shard,
  type SyncMark,
  syncMarksOf,
  type TurnNode,
} from '../../store/index.js';
import { oneLine } from '../../text/sanitize.js';
import type { BranchItem } from '../core/state.js';
import { HERE_AGENT, type Origin } from '../features/tree/groups.js';
import type { OutlineNode, SessionLike } from '../features/tree/model.js';
import { ArchiveReader } from './archives.js';

export class SessionSource {
  private reader: ArchiveReader | null = null;

  constructor(
    private readonly shard: Shard,
    /** True for a session the tree shows as archived. */
    private readonly isArchived: (sid: string) => boolean,
  ) {}

  private get archives(): ArchiveReader {
    this.reader ??= new ArchiveReader(this.shard);
    return this.reader;
  }

  /** The live sessions, and (when shown) the archived ones, read from the archive records. */
  sessions(withArchived: boolean): { sessions: SessionLike[]; archived?: SessionLike[] } {
    const sessions = this.shard.sessionSummaries();
    return withArchived ? { sessions, archived: this.archives.summaries() } : { sessions };
  }

  /**
   * The `limit` newest live sessions (the first rows of `sessions(false)`), and how many live sessions there are:
   * what the first screen needs, without reading every session.
   */
  newest(limit: number): { sessions: SessionLike[]; total: number } {
    return { sessions: this.shard.newestSessions(limit), total: this.shard.sessionCount() };
  }

  outline(sid: string): OutlineNode[] {
    return this.isArchived(sid) ? this.archives.outline(sid) : this.shard.sessionOutline(sid);
  }

  /** The turns from the root down to `bates`, through archived and live sessions alike. */
  pathTo(bates: string): TurnNode[] {
    const sid = parseBates(bates)?.sid;
    if (sid && this.isArchived(sid)) return this.archives.pathTo(bates, this.isArchived);
    return this.shard.pathTo(bates);
  }

  /**
   * Each session's title (its agent's own when the source recorded one, else its first question; shown for
   * unlabelled ones) and its origin (agent and project). Only the first questions of sessions without a source's
   * title are read.
   */
  titles(sids: readonly string[]): { titles: [string, string][]; origins: [string, Origin][] } {
    const from = this.shard.sessionOriginsOf(sids);
    const own = (sid: string) => {
      const t = from.get(sid)?.info.title;
      return typeof t === 'string' && t.trim() !== '' ? t : null;
    };
    const live = new Map(
      this.shard.firstQuestions(
        sids.filter((sid) => !this.isArchived(sid) && own(sid) === null),
        200,
      ),
    );
    return {
      titles: sids.map((sid) => [
        sid,
        oneLine(own(sid) ?? (this.isArchived(sid) ? this.archives.title(sid) : (live.get(sid) ?? ''))),
      ]),
      origins: this.originsOf(sids, from),
    };
  }

  /** The agent and project of each session. */
  origins(sids: readonly string[]): [string, Origin][] {
    const from = this.shard.sessionOriginsOf(sids);
    return this.originsOf(sids, from);
  }

  /** Their origins, with the sync marks of the pulled ones (read only for those). */
  private originsOf(sids: readonly string[], from: ReadonlyMap<string, Mapping>): [string, Origin][] {
    const pulled = sids.filter((sid) => from.get(sid)?.source === 'sync');
    const marks = pulled.length > 0 ? syncMarksOf(this.shard, pulled) : new Map<string, SyncMark>();
    return sids.map((sid) => [sid, originOf(from.get(sid), marks.get(sid))]);
  }

  /**
   * Where a turn is: its session and that session's outline (to reveal it in), or null when there is no such
   * turn. `live` is false for a turn of a session shown as archived.
   */
  locate(bates: string): { sid: string; bates: string; nodes: OutlineNode[]; live: boolean } | null {
    const node = this.shard.getNode(bates);
    if (node)
      return { sid: node.sid, bates: node.bates, nodes: this.shard.sessionOutline(node.sid), live: true };
    const sid = parseBates(bates)?.sid;
    if (sid && this.isArchived(sid)) return { sid, bates, nodes: this.archives.outline(sid), live: false };
    return null;
  }

  /**
   * One turn, for the find preview: live, else from its session's archive (archived after the search found it), else
   * null (deleted since). An archive that cannot be read throws (the preview says why).
   */
  turn(bates: string): { turn: TurnNode; archived: boolean } | null {
    const node = this.shard.getNode(bates);
    if (node) return { turn: node, archived: false };
    const sid = parseBates(bates)?.sid;
    if (!sid || !listArchives(this.shard).some((a) => a.sid === sid)) return null;
    const n = this.archives.node(bates);
    return n ? { turn: n, archived: true } : null;
  }

  branches(sid: string): BranchItem[] {
    if (this.isArchived(sid)) return this.archives.branches(sid);
    return this.shard.branchPoints(sid).map((b) => ({
      bates: b.bates,
      n_children: b.n_children,
      q: oneLine((this.shard.getNode(b.bates)?.question ?? '').slice(0, 300)),
    }));
  }
}

/**
 * A session's agent (its import source, the source it had on its host when pulled by sync; arborist for one asked
 * here), project (the recorded working directory) and, when pulled, its host.
 */
function originOf(m: Mapping | undefined, mark: SyncMark | undefined): Origin {
  if (!m) return { agent: HERE_AGENT, project: '', here: true };
  const o: Origin = { agent: agentOf(m) ?? m.source, project: projectOf(m.info) ?? '' };
  const host = m.source === 'sync' ? m.info.host : undefined;
  if (typeof host === 'string') return { ...o, host, archivedThere: mark?.archived === true };
  return o;
}
