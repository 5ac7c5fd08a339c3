import { formatBates, hashes, parseBates, type TurnRecord } from '../../store/index.js';

/**
 * The checks on an `arborist export --format json` document (docs/export.md), field by field: what is well formed
 * comes out typed, what is not is named by its JSON path (`$.turns[3].seq`) and a short reason. Pure: text in,
 * data out.
 */

export const FORMAT = 'arborist-export';
export const VERSION = 1;

const SID_RE = /^[a-z0-9]{1,32}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const HEAD_RE = /^\d+:[0-9a-f]{64}$/;

export interface DocSession {
  sid: string;
  label: string | null;
  created_at: string;
  session_root: string;
  /** Where the session came from on the exporting shard (shown, never hashed): see readOrigin. */
  origin?: DocOrigin;
}

export interface DocOrigin {
  agent: string;
  cwd?: string;
  project?: string;
  title?: string;
}

const AGENT_RE = /^[a-z0-9-]{1,32}$/;
/** An origin's texts longer than this are another tool's junk, not a path or a title a person reads. */
const MAX_ORIGIN_TEXT = 4096;

/**
 * A session's `origin` (docs/export.md): an agent's name and up to three texts. Not hashed, so nothing rests on it
 * but what the session shows; anything malformed is left out with a problem, and the session imports without it.
 */
function readOrigin(v: unknown, at: string, problems: DocProblem[]): DocOrigin | undefined {
  if (v === undefined) return undefined;
  const bad = (why: string) => {
    problems.push({ path: `${at}.origin`, reason: `${why}; the session is imported without it` });
    return undefined;
  };
  if (!isObject(v)) return bad(`must be an object, not ${kindOf(v)}`);
  if (typeof v.agent !== 'string' || !AGENT_RE.test(v.agent))
    return bad('its agent must be a source kind (1-32 lowercase letters, digits or dashes)');
  const out: DocOrigin = { agent: v.agent };
  for (const k of ['cwd', 'project', 'title'] as const) {
    const t = v[k];
    if (t === undefined) continue;
    if (typeof t !== 'string' || t.length > MAX_ORIGIN_TEXT)
      return bad(`its ${k} must be text of at most ${MAX_ORIGIN_TEXT} characters`);
    if (t !== '') out[k] = t;
  }
  return out;
}

/** A turn of the document: a TurnRecord (declared in the store, with every hashed field). */
export interface DocTurn extends TurnRecord {
  /** The source records the exporting shard kept for an imported turn. */
  source_records?: string[];
}

/** A problem found at a JSON path; `sid` names the session it belongs to, when that is known. */
export interface DocProblem {
  path: string;
  reason: string;
  sid?: string;
}

/**
 * A turn that failed a check, with what could still be read of it: its parent (to re-attach its children), and its
 * place and declared subtree hash (which its parent's subtree hash still covers).
 */
export interface RejectedTurn {
  index: number;
  bates?: string;
  parent_bates?: string | null;
  sid?: string;
  seq?: number;
  subtree_hash?: string;
}

export interface CheckedTurn {
  index: number;
  turn: DocTurn;
  /** The turn object exactly as it is in the document, as JSON. */
  raw: string;
}

/** Shortened JSON of a value for a reason line: enough to recognise it, never a 10 MB quote. */
export function quote(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return typeof v === 'string' ? 'text' : typeof v;
}

/** Field readers: each returns the value, or pushes one problem and returns undefined. */
class Fields {
  constructor(
    private readonly o: Record<string, unknown>,
    private readonly at: string,
    private readonly problems: DocProblem[],
    private readonly sid?: string,
  ) {}

  private bad(key: string, reason: string): undefined {
    this.problems.push({ path: `${this.at}.${key}`, reason, sid: this.sid });
    return undefined;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.o, key);
  }

  text(
    key: string,
    opts: { nullable?: boolean; pattern?: RegExp; what?: string } = {},
  ): string | null | undefined {
    if (!this.has(key)) return this.bad(key, 'missing');
    const v = this.o[key];
    if (v === null && opts.nullable) return null;
    if (typeof v !== 'string')
      return this.bad(key, `must be text${opts.nullable ? ' or null' : ''}, not ${kindOf(v)}`);
    if (!v.isWellFormed()) return this.bad(key, 'is not well-formed Unicode (a lone surrogate)');
    if (opts.pattern && !opts.pattern.test(v)) return this.bad(key, `${quote(v)} is not ${opts.what}`);
    return v;
  }

  int(key: string, min: number): number | undefined {
    if (!this.has(key)) return this.bad(key, 'missing');
    const v = this.o[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min)
      return this.bad(key, `must be a whole number >= ${min}, not ${quote(v)}`);
    return v;
  }

  texts(key: string): string[] | undefined {
    if (!this.has(key)) return this.bad(key, 'missing');
    const v = this.o[key];
    if (!Array.isArray(v)) return this.bad(key, `must be a list of text, not ${kindOf(v)}`);
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'string') return this.bad(`${key}[${i}]`, `must be text, not ${kindOf(v[i])}`);
      if (!(v[i] as string).isWellFormed()) return this.bad(`${key}[${i}]`, 'is not well-formed Unicode');
    }
    return v as string[];
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The document's head: format and version (fatal when wrong), exported_at and chain_head (reported only). */
export function checkHead(doc: unknown, problems: DocProblem[]): doc is Record<string, unknown> {
  if (!isObject(doc)) {
    problems.push({
      path: '$',
      reason: `not an arborist export (the document is ${kindOf(doc)}, not an object)`,
    });
    return false;
  }
  if (doc.format !== FORMAT) {
    problems.push({
      path: '$.format',
      reason: `not an arborist export (format ${quote(doc.format)}, expected "${FORMAT}")`,
    });
    return false;
  }
  if (doc.version !== VERSION) {
    problems.push({
      path: '$.version',
      reason: `version ${quote(doc.version)} is not supported (${VERSION} is)`,
    });
    return false;
  }
  const f = new Fields(doc, '$', problems);
  f.text('exported_at');
  f.text('chain_head', { pattern: HEAD_RE, what: 'SEQ:HASH (a number, a colon, 64 lowercase hex digits)' });
  for (const key of ['sessions', 'turns']) {
    if (!Array.isArray(doc[key])) {
      problems.push({ path: `$.${key}`, reason: `must be a list, not ${kindOf(doc[key])}` });
      return false;
    }
  }
  return true;
}

/** The well-formed sessions, each sid once, in document order. */
export function checkSessions(list: unknown[], problems: DocProblem[]): DocSession[] {
  const out: DocSession[] = [];
  const seen = new Map<string, number>();
  list.forEach((s, i) => {
    const at = `$.sessions[${i}]`;
    if (!isObject(s)) {
      problems.push({ path: at, reason: `must be an object, not ${kindOf(s)}` });
      return;
    }
    const before = problems.length;
    const f = new Fields(s, at, problems);
    const sid = f.text('sid', { pattern: SID_RE, what: 'a session id (1-32 lowercase letters and digits)' });
    const label = f.text('label', { nullable: true });
    const created_at = f.text('created_at');
    const session_root = f.text('session_root', { pattern: HEX64, what: '64 lowercase hex digits' });
    if (problems.length > before || typeof sid !== 'string') return;
    const first = seen.get(sid);
    if (first !== undefined) {
      problems.push({
        path: at,
        reason: `session ${sid} is listed twice (first at $.sessions[${first}])`,
        sid,
      });
      return;
    }
    seen.set(sid, i);
    const origin = readOrigin(s.origin, at, problems);
    out.push({
      sid,
      label: label as string | null,
      created_at: created_at as string,
      session_root: session_root as string,
      ...(origin ? { origin } : {}),
    });
  });
  return out;
}

/** The recomputed node hash of a turn's content (docs/sessions.md), or undefined when it has none. */
function nodeHashOf(t: DocTurn): string | undefined {
  try {
    return hashes
      .nodeHash({
        answer_text: t.answer_text,
        audit: t.audit,
        bates: t.bates,
        cache_key: t.cache_key,
        cited_titles: t.cited_titles,
        created_at: t.created_at,
        n_cited_sources: t.n_cited_sources,
        parent_bates: t.parent_bates,
        question: t.question,
        source: t.source,
        source_id: t.source_id,
      })
      .toString('hex');
  } catch {
    return undefined;
  }
}

/**
 * One turn: every field of the right type, its Bates id `<sid>-<seq>` of its own sid and seq, in a session of the
 * document, its hashes 64 hex digits, and its node_hash the hash of its content. A turn failing any of these is
 * rejected (with what could be read of it).
 */
export function checkTurn(
  v: unknown,
  index: number,
  sessions: ReadonlySet<string>,
  problems: DocProblem[],
): CheckedTurn | RejectedTurn {
  const at = `$.turns[${index}]`;
  if (!isObject(v)) {
    problems.push({ path: at, reason: `must be an object, not ${kindOf(v)}` });
    return { index };
  }
  const sidValue = typeof v.sid === 'string' && sessions.has(v.sid) ? v.sid : undefined;
  const before = problems.length;
  const f = new Fields(v, at, problems, sidValue);
  const batesRule = { pattern: /^[a-z0-9]{1,32}-\d{6,}$/, what: 'a Bates id (<sid>-<6 digits>)' };
  const bates = f.text('bates', batesRule);
  const sid = f.text('sid', { pattern: SID_RE, what: 'a session id (1-32 lowercase letters and digits)' });
  const seq = f.int('seq', 1);
  const parent_bates = f.text('parent_bates', { ...batesRule, nullable: true });
  const t = {
    bates,
    sid,
    seq,
    parent_bates,
    question: f.text('question'),
    answer_text: f.text('answer_text'),
    cited_titles: f.texts('cited_titles'),
    n_cited_sources: f.int('n_cited_sources', 0),
    audit: f.text('audit'),
    cache_key: f.text('cache_key', { nullable: true }),
    created_at: f.text('created_at'),
    source: f.text('source', { nullable: true }),
    source_id: f.text('source_id', { nullable: true }),
    node_hash: f.text('node_hash', { pattern: HEX64, what: '64 lowercase hex digits' }),
    subtree_hash: f.text('subtree_hash', { pattern: HEX64, what: '64 lowercase hex digits' }),
  };
  const records = f.has('source_records') ? f.texts('source_records') : undefined;
  const rejected: RejectedTurn = {
    index,
    bates: typeof bates === 'string' ? bates : undefined,
    parent_bates: parent_bates === undefined ? undefined : parent_bates,
    sid: typeof sid === 'string' ? sid : undefined,
    seq,
    subtree_hash: typeof t.subtree_hash === 'string' ? t.subtree_hash : undefined,
  };
  if (problems.length > before) return rejected;
  const turn = (records === undefined ? t : { ...t, source_records: records }) as DocTurn;
  const name = `${at} (${turn.bates})`;
  if (formatBates(turn.sid, turn.seq) !== turn.bates || parseBates(turn.bates) === null) {
    problems.push({
      path: `${at}.bates`,
      reason: `${turn.bates} is not the Bates id of sid ${turn.sid} and seq ${turn.seq}`,
      sid: sidValue,
    });
    return rejected;
  }
  if (sidValue === undefined) {
    problems.push({ path: `${at}.sid`, reason: `session ${turn.sid} is not one of the document's sessions` });
    return rejected;
  }
  if (nodeHashOf(turn) !== turn.node_hash) {
    problems.push({
      path: name,
      reason: 'node_hash does not match the content (edited after export, or damaged); skipped',
      sid: sidValue,
    });
    return rejected;
  }
  return { index, turn, raw: JSON.stringify(v) };
}

/** A child of an exported turn that the document does not hold (`outside_children`), with its subtree hash. */
export interface OutsideChild {
  bates: string;
  parent_bates: string;
  subtree_hash: string;
}

/**
 * `outside_children`: null when the document has none (an export made before it was written), else the
 * well-formed entries. A malformed entry is reported and left out, so its parent's subtree_hash will not check.
 */
export function checkOutside(doc: Record<string, unknown>, problems: DocProblem[]): OutsideChild[] | null {
  if (!Object.hasOwn(doc, 'outside_children')) return null;
  const list = doc.outside_children;
  if (!Array.isArray(list)) {
    problems.push({ path: '$.outside_children', reason: `must be a list, not ${kindOf(list)}` });
    return [];
  }
  const out: OutsideChild[] = [];
  const batesRule = { pattern: /^[a-z0-9]{1,32}-\d{6,}$/, what: 'a Bates id (<sid>-<6 digits>)' };
  list.forEach((v, i) => {
    const at = `$.outside_children[${i}]`;
    if (!isObject(v)) {
      problems.push({ path: at, reason: `must be an object, not ${kindOf(v)}` });
      return;
    }
    const f = new Fields(v, at, problems);
    const bates = f.text('bates', batesRule);
    const parent = f.text('parent_bates', batesRule);
    const hash = f.text('subtree_hash', { pattern: HEX64, what: '64 lowercase hex digits' });
    if (typeof bates === 'string' && typeof parent === 'string' && typeof hash === 'string')
      out.push({ bates, parent_bates: parent, subtree_hash: hash });
  });
  return out;
}
