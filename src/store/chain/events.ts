import { SID_RE } from '../model/ids.js';
import type { ChainClaims } from './claims.js';

/**
 * The audit chain's event kinds, in one registry: each kind's payload type (what `AuditLog.append` is checked
 * against), what it changes, and what it claims about the state (the handler verify's claims replay runs). The
 * registry is a mapped type over EventPayloads, so a kind without a handler, a description or its flags does not
 * compile, and the replay has no default case to forget one in. docs/sessions.md's table of events is generated
 * from it (tests/store/events.test.ts keeps the two the same).
 */

/** Session roots by sid, hex: every root a change moved, after it. */
export type SessionRoots = Record<string, string>;

/** A source chunk a bulk write stored: [chunk id, sha256 hex of its uncompressed records, their bytes]. */
export type ChunkDigest = [number, string, number];

export interface EventPayloads {
  'shard.init': { from: number; to: number };
  'shard.migrate': { from: number; to: number };
  'session.create': {
    sid: string;
    label: string | null;
    session_root: string;
    /** An imported session: the row of session_sources the event made. */
    source?: { source: string; source_session: string; info_json: string };
  };
  'node.add': {
    bates: string;
    parent_bates: string | null;
    node_hash: string;
    /** Every root the insert changed; absent when written by the bulk path (its closing event holds them). */
    session_roots?: SessionRoots;
    /** An imported turn's source records: [chunk id, start, length] in the chunk's uncompressed bytes. */
    records?: [number, number, number];
  };
  'import.file': {
    source: string;
    file: string;
    turns_added: number;
    turns_skipped: number;
    problems: number;
    turns: number;
    chunks: ChunkDigest[];
    session_roots: SessionRoots;
  };
  'nodes.bulk': {
    generator: string;
    seed: number;
    turns: number;
    chunks: ChunkDigest[];
    session_roots: SessionRoots;
  };
  'session.resume': { source_bates: string; new_session_id: string; file: string; lines: number };
  'entry.set': { key: string; sid: string; previous_sid: string | null };
  'entry.checkpoint': { key: string; checkpoint: unknown };
  'entry.usage_family': { key: string; sid: string };
  'entry.reset': {
    key: string;
    previous_sid: string | null;
    sid: string;
    session_root: string;
    archived: string[];
    kept: string[];
  };
  'entry.delete': { key: string; sid: string | null; archived: string[]; kept: string[] };
  'session.archive': {
    sid: string;
    reason: string;
    sha256: string;
    bytes: number;
    n_nodes: number;
    session_root: string;
    session_roots: SessionRoots;
  };
  'session.restore': {
    sid: string;
    sha256: string;
    n_nodes: number;
    session_root: string;
    session_roots: SessionRoots;
    identical: boolean;
  };
  sync: {
    remote: string;
    /** This shard's host id (docs/sync.md): recorded so that a lost host file is never silently replaced. */
    host: string;
    /** This host's branch as pushed: the commit and the chain head it holds; null when nothing was pushed. */
    pushed: SyncHead | null;
    turns_pushed: number;
    turns_pulled: number;
    /** Every other host whose branch was imported: the commit and its chain head, as now recorded here. */
    hosts: Record<string, SyncHead>;
    /** Sessions pulled from another host whose archived-there mark this sync set: sid -> {host, archived}. */
    marks: Record<string, { host: string; archived: boolean }>;
  };
}

/** A host's branch at one commit: the commit's object id and the head of the host's chain it holds. */
export interface SyncHead {
  commit: string;
  seq: number;
  hash: string;
}

export type EventKind = keyof EventPayloads;

/** What an event of a kind changes in the state (besides the chain itself). */
export type EventChange = 'turns+' | 'turns-' | 'sessions+' | 'sessions-' | 'roots' | 'entries' | 'sources';

/**
 * A payload as read back from the chain: nothing in a stored body can be trusted to have its type, so a handler
 * sees each declared field as unknown, and no field the payload type does not declare.
 */
export type Untrusted<P> = { readonly [F in keyof P]?: unknown };

export interface EventSpec<K extends EventKind> {
  /** What the event records, for docs/sessions.md. */
  readonly doc: string;
  /**
   * Every field of the payload, each with a few words ('' when its name says it all): the type makes this list
   * exactly the payload's fields, so the generated table cannot miss one or name one that is not there.
   */
  readonly fields: { readonly [F in keyof Required<EventPayloads[K]>]: string };
  readonly changes: readonly EventChange[];
  /** Applies the event's claims (claims.ts): what verify later holds the state to. */
  readonly claim: (claims: ChainClaims, seq: number, ts: string, data: Untrusted<EventPayloads[K]>) => void;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** What a value is, in a few words, for a problem line (never the value: it is untrusted). */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'text';
  return `a ${typeof v}`;
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The fields of a session.create payload that are not what the store writes (tree/sessions.ts, insertSession): the
 * replay reads a bad one as something harmless (a label as null), and an attacker who rewrites the chain end to end
 * could make the state agree with that reading, so the payload itself is a problem.
 */
function sessionCreateFaults(d: Untrusted<EventPayloads['session.create']>): string[] {
  const out: string[] = [];
  const sid = typeof d.sid === 'string' && SID_RE.test(d.sid) ? d.sid : undefined;
  if (sid === undefined) out.push(`names no valid session id (${kindOf(d.sid)})`);
  const of = sid === undefined ? '' : ` of ${sid}`;
  if (d.label !== null && typeof d.label !== 'string')
    out.push(`gives session${of} a label that is not text or null (${kindOf(d.label)})`);
  if (typeof d.session_root !== 'string' || !HEX64.test(d.session_root))
    out.push(
      `gives session${of} a session_root that is not 64 lowercase hex digits (${kindOf(d.session_root)})`,
    );
  const src = d.source as Record<string, unknown> | null | undefined;
  if (
    src !== undefined &&
    (src === null ||
      typeof src !== 'object' ||
      Array.isArray(src) ||
      typeof src.source !== 'string' ||
      typeof src.source_session !== 'string' ||
      typeof src.info_json !== 'string')
  )
    out.push(`gives session${of} a source that is not {source, source_session, info_json} as text`);
  return out;
}

function bulkClosed(c: ChainClaims, seq: number, d: Untrusted<EventPayloads['import.file' | 'nodes.bulk']>) {
  // A bulk write's node.add events carry no roots: the hashes are folded once, and this event records the roots
  // after it, with the digests of the source chunks it wrote.
  c.setRoots(d.session_roots, seq);
  c.chunkDigests(d.chunks, seq);
}

export const EVENTS: { readonly [K in EventKind]: EventSpec<K> } = {
  'shard.init': {
    fields: { from: '', to: '' },
    doc: 'a new shard, created at schema version `to` (`from` is 0)',
    changes: [],
    claim: () => {},
  },
  'shard.migrate': {
    fields: { from: '', to: '' },
    doc: 'the schema upgraded from version `from` to `to` (docs/sessions.md, "Migrations")',
    changes: [],
    claim: () => {},
  },
  'session.create': {
    fields: { sid: '', label: '', session_root: '', source: '{source, source_session, info_json}' },
    doc: 'a new session with its (empty) root; an imported one adds `source`, the row of `session_sources` it made',
    changes: ['sessions+', 'roots', 'sources'],
    claim: (c, seq, _ts, d) => {
      for (const why of sessionCreateFaults(d)) c.malformed(seq, `session.create ${why}`);
      c.created(
        str(d.sid),
        typeof d.label === 'string' ? d.label : null,
        str(d.session_root),
        seq,
        'session.create',
      );
      c.sessionSource(str(d.sid), d.source, seq);
    },
  },
  'node.add': {
    fields: { bates: '', parent_bates: '', node_hash: '', session_roots: '{sid: hex}', records: '' },
    doc:
      'one turn and its node hash. `session_roots`: every root the insert changed. Written by the bulk path ' +
      '(imports, `npm run gen`): no `session_roots` (the closing `import.file` or `nodes.bulk` records them), and for ' +
      'an imported turn `records: [chunk_id, start, length]`',
    changes: ['turns+', 'roots', 'sources'],
    claim: (c, seq, _ts, d) => {
      c.added(str(d.bates), str(d.node_hash), seq);
      c.setRoots(d.session_roots, seq);
      c.records(str(d.bates), d.records, seq);
    },
  },
  'import.file': {
    fields: {
      source: '',
      file: '',
      turns_added: '',
      turns_skipped: '',
      problems: '',
      turns: '',
      chunks: '',
      session_roots: '',
    },
    doc:
      'closes the bulk write of one imported file: its counts, the digests of the source chunks it wrote ' +
      '(`chunks: [[id, sha256 hex, bytes], ...]`) and every root the batch changed, after it',
    changes: ['roots', 'sources'],
    claim: (c, seq, _ts, d) => bulkClosed(c, seq, d),
  },
  'nodes.bulk': {
    fields: { generator: '', seed: '', turns: '', chunks: '', session_roots: '' },
    doc: "the same closing event for a generator's batch (`npm run gen`), with `{generator, seed}` for the file",
    changes: ['roots', 'sources'],
    claim: (c, seq, _ts, d) => bulkClosed(c, seq, d),
  },
  'session.resume': {
    fields: { source_bates: '', new_session_id: '', file: '', lines: '' },
    doc:
      '`arborist resume` wrote an agent session of `lines` lines to `file` from the path to `source_bates`, under ' +
      "the agent's new session id (docs/resume.md); the turns it adds arrive later through an import",
    changes: [],
    claim: () => {},
  },
  'entry.set': {
    fields: { key: '', sid: '', previous_sid: '' },
    doc: "an entry points at a session; the previous one joins the entry's usage family",
    changes: ['entries'],
    claim: (c, seq, ts, d) => c.entrySet(str(d.key), str(d.sid), seq, ts),
  },
  'entry.checkpoint': {
    fields: { key: '', checkpoint: '' },
    doc: 'a compaction checkpoint added to an entry (the whole checkpoint object)',
    changes: ['entries'],
    claim: (c, seq, ts, d) => c.entryCheckpoint(str(d.key), d.checkpoint, seq, ts),
  },
  'entry.usage_family': {
    fields: { key: '', sid: '' },
    doc: "a session added to an entry's usage family",
    changes: ['entries'],
    claim: (c, seq, ts, d) => c.entryUsageFamily(str(d.key), str(d.sid), seq, ts),
  },
  'entry.reset': {
    fields: { key: '', previous_sid: '', sid: '', session_root: '', archived: '[sid...]', kept: '[sid...]' },
    doc:
      'the entry moves to a new, empty session, created by this event (no `session.create`); `archived` and ' +
      '`kept` name the family sessions archived (one `session.archive` each follows) and kept',
    changes: ['entries', 'sessions+', 'roots'],
    claim: (c, seq, ts, d) => {
      c.created(str(d.sid), null, str(d.session_root), seq, 'entry.reset');
      c.entryReset(str(d.key), str(d.sid), seq, ts);
    },
  },
  'entry.delete': {
    fields: { key: '', sid: '', archived: '[sid...]', kept: '[sid...]' },
    doc: 'the entry goes; `archived` and `kept` as for a reset',
    changes: ['entries'],
    claim: (c, seq, ts, d) => c.entryDelete(str(d.key), seq, ts),
  },
  'session.archive': {
    fields: {
      sid: '',
      reason: '',
      sha256: '',
      bytes: '',
      n_nodes: '',
      session_root: '',
      session_roots: '{sid: hex}',
    },
    doc:
      "a session's rows moved into one archive body: its digest, size, turns, `session_root` as archived, and " +
      '`session_roots` of the live sessions the ripple changed',
    changes: ['turns-', 'sessions-', 'roots'],
    claim: (c, seq, _ts, d) => c.archived(str(d.sid), str(d.sha256), d.session_roots, seq),
  },
  'session.restore': {
    fields: {
      sid: '',
      sha256: '',
      n_nodes: '',
      session_root: '',
      session_roots: '{sid: hex}',
      identical: '',
    },
    doc: 'an archived session back, its body checked against `sha256`; `identical`: its root is the one archived',
    changes: ['turns+', 'sessions+', 'roots'],
    claim: (c, seq, _ts, d) => c.restored(str(d.sid), d.session_root, d.session_roots, seq),
  },
  sync: {
    fields: {
      remote: '',
      host: "this shard's host id",
      pushed: '{commit, seq, hash} or null',
      turns_pushed: '',
      turns_pulled: '',
      hosts: '{host: {commit, seq, hash}}',
      marks: '{sid: {host, archived}}',
    },
    doc:
      '`arborist sync` with one remote (docs/sync.md): what it pushed of this host, the branch of each other host ' +
      'it imported, and the archived-there marks it set (the rows of `sync_state` and `sync_marks` it wrote); the ' +
      'turns it imported have their own events',
    changes: ['sources'],
    claim: (c, seq, _ts, d) => c.synced(d, seq),
  },
};

export function isEventKind(kind: string): kind is EventKind {
  return Object.hasOwn(EVENTS, kind);
}

/**
 * One event's claims. A kind the registry does not know is a problem: a newer arborist that added a kind also
 * raised the schema version, which this build refuses to open, so an unknown kind was written behind the store's
 * back (and verify could not check what it claims).
 */
export function claimEvent(
  c: ChainClaims,
  seq: number,
  kind: string,
  ts: string,
  data: Record<string, unknown>,
) {
  c.events++;
  if (!isEventKind(kind)) {
    c.problems.push({
      kind: 'event',
      id: String(seq),
      detail: `its kind '${kind}' is not one arborist writes`,
    });
    return;
  }
  (EVENTS[kind].claim as EventSpec<EventKind>['claim'])(c, seq, ts, data);
}

/** docs/sessions.md's table of events, from the registry. */
export function eventsMarkdown(): string {
  const rows = (Object.keys(EVENTS) as EventKind[]).map((k) => {
    const spec = EVENTS[k];
    const fields = Object.entries(spec.fields as Record<string, string>)
      .map(([f, what]) => (what === '' ? f : `${f}: ${what}`))
      .join(', ');
    const changes = spec.changes.length > 0 ? spec.changes.join(' ') : 'nothing';
    return `| \`${k}\` | \`{${fields}}\` | ${changes} | ${spec.doc} |`;
  });
  return ['| kind | data | changes | what it records |', '|---|---|---|---|', ...rows].join('\n');
}
