/**
 * Archived sessions for the tree, read-only, from the archive bodies (docs/sessions.md "Entries, archiving and
 * retention"). Used by the session source (sessions.ts); nothing here draws.
 */
import {
  type ArchiveContent,
  listArchives,
  outlineOfTurns,
  parentCycle,
  parseBates,
  readArchive,
  type Shard,
  type TurnNode,
} from '../../store/index.js';
import { oneLine } from '../../text/sanitize.js';
import type { BranchItem } from '../core/state.js';
import type { ArchivedTag, OutlineNode, SessionLike } from '../features/tree/model.js';

export class ArchiveReader {
  /** Decoded archives by sid, with their turns by Bates id; cleared whenever the list is read again. */
  private cache = new Map<string, { content: ArchiveContent; byBates: Map<string, TurnNode> }>();

  constructor(private readonly shard: Shard) {}

  /** Archived sessions for the tree, most recently archived first. */
  summaries(): (SessionLike & { archived: ArchivedTag })[] {
    this.cache.clear();
    return listArchives(this.shard)
      .sort((a, b) =>
        a.archived_at === b.archived_at ? (a.sid < b.sid ? 1 : -1) : a.archived_at < b.archived_at ? 1 : -1,
      )
      .map((a) => ({
        sid: a.sid,
        label: a.label,
        // The creation time is inside the body; the list shows when it was archived instead.
        created_at: a.archived_at,
        n_nodes: a.n_nodes,
        archived: { reason: a.reason, archived_at: a.archived_at },
      }));
  }

  private load(sid: string) {
    let c = this.cache.get(sid);
    if (!c) {
      const content = readArchive(this.shard, sid);
      c = { content, byBates: new Map(content.nodes.map((n) => [n.bates, n])) };
      this.cache.set(sid, c);
    }
    return c;
  }

  outline(sid: string): OutlineNode[] {
    return outlineOfTurns(this.load(sid).content.nodes);
  }

  node(bates: string): TurnNode | undefined {
    const sid = parseBates(bates)?.sid;
    return sid ? this.load(sid).byBates.get(bates) : undefined;
  }

  /** The turns from the root down to `bates`, through archived and live sessions alike. */
  pathTo(bates: string, isArchived: (sid: string) => boolean): TurnNode[] {
    const out: TurnNode[] = [];
    const seen = new Set<string>();
    let cur: string | null = bates;
    while (cur) {
      if (seen.has(cur)) throw parentCycle(cur);
      seen.add(cur);
      const sid: string | undefined = parseBates(cur)?.sid;
      const n: TurnNode | undefined = sid && isArchived(sid) ? this.node(cur) : this.shard.getNode(cur);
      if (!n) break;
      out.push(n);
      cur = n.parent_bates;
    }
    return out.reverse();
  }

  branches(sid: string): BranchItem[] {
    return this.load(sid)
      .content.nodes.filter((n) => n.n_children >= 2)
      .map((n) => ({ bates: n.bates, n_children: n.n_children, q: oneLine(n.question.slice(0, 300)) }));
  }

  /** The first question, for an unlabelled archived session. */
  title(sid: string): string {
    const first = this.load(sid).content.nodes[0];
    return first ? oneLine(first.question.slice(0, 200)) : '';
  }
}
