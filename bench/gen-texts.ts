/**
 * The generator of bench/gen.ts: the texts and the shape of a synthetic shard, made in batches, on a worker thread
 * (gen-worker.ts) or inline. Deterministic for a given seed and node count: the same seed makes the same batches
 * wherever it runs, so the shard's node hashes and session roots do not depend on where the texts were made.
 *
 * Many sessions of varied length (5..300 turns, log-uniform), a few interleaved at a time; conversations are
 * chains with occasional rewinds (branches); some sessions fork from a turn of an older session. Questions
 * (~60-200 chars) and answers (~400-1500 chars) are drawn from a Zipf-ranked vocabulary of a few thousand words
 * plus a long tail of rare tokens; each session leans on a few topic words. Timestamps rise over eight months.
 */
import { type BulkTurn, formatBates, hashes, type NewSession } from '../src/store/index.js';
import { Rng, Zipf } from './rng.js';
import { buildVocabulary, pseudoWord } from './words.js';

export interface GenStats {
  sessions: number;
  labelled: number;
  forks: number;
  rewinds: number;
  branchPoints: number;
  maxDepth: number;
  depthSum: number;
  nodes: number;
  /** Seconds spent making every batch. */
  makeSecs: number;
}

/** One batch: the sessions to create first, then the turns (a parent in the batch by index), and their Bates ids. */
export interface GenBatch {
  sessions: NewSession[];
  turns: BulkTurn[];
  bates: string[];
  /** Seconds the generator spent making this batch. */
  secs: number;
}

export interface TurnMaker {
  /** The turns up to `end` (a turn count, increasing). */
  next(end: number): GenBatch;
  stats(): GenStats;
}

export function turnMaker(N: number, SEED: number): TurnMaker {
  // ---- text -------------------------------------------------------------------------------------------------

  const VOCAB = buildVocabulary(4000);
  const N_FUNCTION = 100; // the head of the curve: function words and the most common content words
  const zipf = new Zipf(VOCAB.length);
  const topicZipf = new Zipf(VOCAB.length - N_FUNCTION, 0.8, 10);
  const rng = new Rng(SEED);

  const OPENERS = [
    'how do I',
    'what is the difference between',
    'why does',
    'can you explain',
    'is it possible to',
    'what happens when',
    'how should I',
    'when should I use',
    'where does',
    'which',
    'what is the best way to',
    'how can I',
    'why is my',
    'should I',
    'what does',
    'help me understand',
    'and for',
    'ok, and what about',
    'follow-up: how does',
    'compare',
  ];

  /** A rare token: an identifier, an error code, a number or a version, almost never repeated. */
  function rareToken(): string {
    const k = rng.int(0, 9);
    if (k < 5) return pseudoWord(rng.u32(), 3);
    if (k < 7) return `${pseudoWord(rng.u32(), 2)}_${pseudoWord(rng.u32(), 2)}`;
    if (k < 8) return `E${rng.int(1000, 9999)}`;
    if (k < 9) return String(rng.int(2, 99999));
    return `v${rng.int(0, 9)}.${rng.int(0, 30)}.${rng.int(0, 20)}`;
  }

  function word(topic: string[]): string {
    const u = rng.float();
    if (u < 0.1) return topic[rng.int(0, topic.length - 1)];
    if (u < 0.1025) return rareToken();
    return VOCAB[zipf.sample(rng)];
  }

  function capitalise(s: string): string {
    return s.charAt(0).toUpperCase() + s.slice(1);
  }

  function question(topic: string[]): string {
    const target = rng.int(60, 200);
    let q = capitalise(rng.pick(OPENERS));
    while (q.length < target - 8) q += ` ${word(topic)}`;
    return `${q}?`;
  }

  function answer(topic: string[]): string {
    const target = rng.int(400, 1500);
    const parts: string[] = [];
    let len = 0;
    while (len < target) {
      const n = rng.int(6, 22);
      let s = capitalise(word(topic));
      for (let i = 1; i < n; i++) {
        s += rng.chance(0.06) ? `, ${word(topic)}` : ` ${word(topic)}`;
      }
      if (rng.chance(0.05)) s += ` \`${word(topic)}()\``;
      s += rng.chance(0.08) ? ':' : '.';
      parts.push(s);
      len += s.length + 1;
      if (rng.chance(0.12)) {
        parts.push('\n\n');
        len += 2;
      }
    }
    return parts.join(' ').replaceAll(' \n\n ', '\n\n');
  }

  // Cited titles: a fixed pool, themselves Zipf-ranked (a few references are cited everywhere).
  const TITLE_KINDS = [
    'Guide',
    'Handbook',
    'Reference',
    'FAQ',
    'Manual',
    'Book',
    'Notes',
    'Docs',
    'RFC',
    'Wiki',
  ];
  const titleRng = new Rng(0x7173);
  const TITLES = Array.from({ length: 3000 }, (_, i) => {
    const a = capitalise(VOCAB[N_FUNCTION + ((titleRng.u32() >>> 0) % (VOCAB.length - N_FUNCTION))]);
    const b = capitalise(VOCAB[N_FUNCTION + ((titleRng.u32() >>> 0) % (VOCAB.length - N_FUNCTION))]);
    const kind = TITLE_KINDS[i % TITLE_KINDS.length];
    return `The ${a} ${b} ${kind} ${titleRng.int(1, 24)}.${titleRng.int(1, 12)}`;
  });
  const titleZipf = new Zipf(TITLES.length, 0.9, 5);

  function cites(n: number): string[] {
    const out = new Set<string>();
    for (let i = 0; i < n; i++) out.add(TITLES[titleZipf.sample(rng)]);
    return [...out];
  }

  function pickAudit(): string {
    const u = rng.float();
    if (u < 0.55) return 'grounded';
    if (u < 0.7) return 'manual';
    if (u < 0.9) return 'cached';
    return 'ungrounded';
  }

  function hexId(bytes: number): string {
    let s = '';
    for (let i = 0; i < bytes; i += 4) s += rng.u32().toString(16).padStart(8, '0');
    return s.slice(0, bytes * 2);
  }

  // ---- structure --------------------------------------------------------------------------------------------

  interface SessionState {
    sid: string;
    /** depth (across sessions) of each turn, by seq - 1 */
    depths: number[];
    /** children of each turn, by seq - 1 */
    kids: number[];
  }

  interface Active {
    s: SessionState;
    remaining: number;
    leafSeq: number;
    topic: string[];
  }

  const sessions: SessionState[] = [];
  const usedSids = new Set<string>();
  const recentGrounded: { q: string; a: string; cited: string[]; key: string }[] = [];
  const K_ACTIVE = 4;
  const active: (Active | null)[] = new Array(K_ACTIVE).fill(null);

  const T0 = Date.UTC(2025, 2, 1);
  const SPAN_MS = 240 * 24 * 3600 * 1000;
  const meanGap = SPAN_MS / N;
  let clock = T0;

  const stats = { sessions: 0, labelled: 0, forks: 0, rewinds: 0, branchPoints: 0, maxDepth: 0, depthSum: 0 };

  function newSid(): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    for (;;) {
      let sid = '';
      for (let i = 0; i < 8; i++) sid += alphabet[rng.u32() % 36];
      if (!usedSids.has(sid)) {
        usedSids.add(sid);
        return sid;
      }
    }
  }

  function sessionLength(): number {
    // log-uniform on 5..300: many short sessions, a few very long ones (mean ~72)
    return Math.round(5 * Math.exp(rng.float() * Math.log(300 / 5)));
  }

  function noteChild(s: SessionState, seq: number): void {
    s.kids[seq - 1]++;
    if (s.kids[seq - 1] === 2) stats.branchPoints++;
  }

  /** The batch being made: its new sessions, then its turns (written together through the bulk path). */
  let newSessions: NewSession[] = [];
  let batch: BulkTurn[] = [];
  const batchIndex = new Map<string, number>();

  function addTurn(a: Active, parent: { s: SessionState; seq: number } | null): void {
    clock += rng.exp(meanGap);
    const created_at = new Date(clock).toISOString();
    const audit = pickAudit();
    let q: string;
    let ans: string;
    let cited: string[];
    let cache_key: string | null = null;
    if (audit === 'cached' && recentGrounded.length > 0) {
      const r = recentGrounded[rng.int(0, recentGrounded.length - 1)];
      q = r.q;
      ans = r.a;
      cited = r.cited;
      cache_key = r.key;
    } else {
      q = question(a.topic);
      ans = answer(a.topic);
      cited = audit === 'grounded' ? cites(rng.int(1, 4)) : audit === 'manual' ? cites(rng.int(0, 1)) : [];
      if (audit === 'grounded' || audit === 'cached') {
        cache_key = hashes.sha256(`${a.s.sid}\n${q}`).toString('hex');
        recentGrounded.push({ q, a: ans, cited, key: cache_key });
        if (recentGrounded.length > 256) recentGrounded.splice(0, 64);
      }
    }
    const imported = rng.chance(0.15);
    const seq = a.s.depths.length + 1;
    const parentBates = parent ? formatBates(parent.s.sid, parent.seq) : null;
    const inBatch = parentBates === null ? undefined : batchIndex.get(parentBates);
    batchIndex.set(formatBates(a.s.sid, seq), batch.length);
    batch.push({
      sid: a.s.sid,
      parent: inBatch ?? parentBates,
      content: {
        question: q,
        answer_text: ans,
        cited_titles: cited,
        audit,
        cache_key,
        created_at,
        source: imported ? 'claude-code' : null,
        source_id: imported ? hexId(16) : null,
      },
    });
    const depth = parent ? parent.s.depths[parent.seq - 1] + 1 : 0;
    a.s.depths.push(depth);
    a.s.kids.push(0);
    if (parent) noteChild(parent.s, parent.seq);
    a.leafSeq = seq;
    a.remaining--;
    stats.maxDepth = Math.max(stats.maxDepth, depth);
    stats.depthSum += depth;
  }

  function startSession(slot: number): void {
    clock += rng.exp(meanGap);
    const sid = newSid();
    const topic = Array.from({ length: rng.int(3, 5) }, () => VOCAB[N_FUNCTION + topicZipf.sample(rng)]);
    const labelled = rng.chance(0.7);
    const label = labelled ? topic.slice(0, rng.int(1, 3)).join(' ') : null;
    newSessions.push({ sid, label, created_at: new Date(clock).toISOString() });
    const s: SessionState = { sid, depths: [], kids: [] };
    sessions.push(s);
    stats.sessions++;
    if (labelled) stats.labelled++;
    const a: Active = { s, remaining: sessionLength(), leafSeq: 0, topic };
    active[slot] = a;
    // Some sessions fork from a turn of an older session: their first turn hangs under it.
    let parent: { s: SessionState; seq: number } | null = null;
    if (sessions.length > 10 && rng.chance(0.06)) {
      const older = sessions[rng.int(0, sessions.length - 2)];
      if (older.depths.length > 0) {
        parent = { s: older, seq: rng.int(1, older.depths.length) };
        stats.forks++;
      }
    }
    addTurn(a, parent);
  }

  function step(): void {
    const slot = rng.int(0, K_ACTIVE - 1);
    const a = active[slot];
    if (a === null || a.remaining <= 0) {
      startSession(slot);
      return;
    }
    let parentSeq = a.leafSeq;
    // A rewind: the user goes back a few turns and asks something else there, starting a branch.
    if (a.leafSeq > 2 && rng.chance(0.07)) {
      parentSeq = rng.int(Math.max(1, a.leafSeq - 12), a.leafSeq - 1);
      stats.rewinds++;
    }
    addTurn(a, { s: a.s, seq: parentSeq });
  }

  let made = 0;
  let makeSecs = 0;
  return {
    next(end: number): GenBatch {
      const t0 = performance.now();
      while (made < end) {
        step();
        made++;
      }
      const bates: string[] = new Array(batch.length);
      for (const [b, i] of batchIndex) bates[i] = b;
      const secs = (performance.now() - t0) / 1000;
      makeSecs += secs;
      const out = { sessions: newSessions, turns: batch, bates, secs };
      newSessions = [];
      batch = [];
      batchIndex.clear();
      return out;
    },
    stats(): GenStats {
      return { ...stats, nodes: sessions.reduce((acc, s) => acc + s.depths.length, 0), makeSecs };
    },
  };
}
