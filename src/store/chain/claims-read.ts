import type Database from 'better-sqlite3';
import { eventsSeqIsRowid } from '../db/events-table.js';
import { integerList } from '../db/page-lists.js';
import { ChainClaims } from './claims.js';
import { claimEvent } from './events.js';

/**
 * Reading the chain once to rebuild its claims (claims.ts): page by page in seq order, each page as one set of
 * values or, when it holds an odd row, row by row; the events the store writes most (a turn's node.add, in its
 * one fixed form) are read by a check of that form, every other body by JSON.parse.
 */

const PAGE = 2000;

/**
 * A page of events (seq in (lo, hi]) as a handful of values rather than one JavaScript row each (making a row of a
 * number, two strings and a Buffer per event cost more than parsing its body): the body lengths and the kinds and
 * timestamps as lists, the bodies back to back in one blob. seq is the rowid, so a page holding hi - lo rows holds
 * every seq of the range, in order; any other page is read row by row. `odd` counts the rows this cannot carry
 * exactly (a body that is not a blob, a kind or ts that is not text); a page with any, or whose lists do not split
 * into as many parts as it has rows, is read row by row too. With no NULL among them (text only), a list of n values
 * splits into more than n parts exactly when a value holds the separator: counting the separators (listStarts)
 * answers that, as instr() of every kind and ts did at a fifth of this query's cost.
 */
const FAST_PAGE_SQL = `SELECT count(*), group_concat(length(body)),
    group_concat(kind, char(31)), group_concat(ts, char(31)), CAST(group_concat(body, '') AS BLOB),
    sum(typeof(body) <> 'blob' OR typeof(kind) <> 'text' OR typeof(ts) <> 'text')
  FROM audit_events NOT INDEXED WHERE seq > ? AND seq <= ?`;
type FastPage = [number, string, string, string, Buffer | null, number];

/** One event as stored: its body parsed and checked against the seq, kind and ts stored beside it. */
export function applyEvent(
  claims: ChainClaims,
  seq: number,
  kindCol: unknown,
  tsCol: unknown,
  text: string | null,
): void {
  let ev: { data?: unknown; kind?: unknown; seq?: unknown; ts?: unknown };
  try {
    if (text === null) throw new Error('not bytes');
    ev = JSON.parse(text);
    if (ev === null || typeof ev !== 'object') throw new Error('not an object');
  } catch {
    claims.problems.push({ kind: 'event', id: String(seq), detail: 'its body is not an event' });
    return;
  }
  if (ev.seq !== seq || ev.kind !== kindCol || ev.ts !== tsCol) {
    // kind and ts are stored beside the body for queries; only the body is hashed, so they must agree with it.
    claims.problems.push({
      kind: 'event',
      id: String(seq),
      detail: 'its columns disagree with its body',
    });
  }
  const data = ev.data !== null && typeof ev.data === 'object' ? (ev.data as Record<string, unknown>) : {};
  claimEvent(claims, seq, String(ev.kind), String(ev.ts), data);
}

/** An event row as stored (seq, kind, ts, body), any column of any type. */
type EventRow = [number, unknown, unknown, unknown];

/** One event row read row by row: a body that is not bytes is no event. */
function applyRow(claims: ChainClaims, [seq, kindCol, tsCol, body]: EventRow): void {
  applyEvent(claims, seq, kindCol, tsCol, Buffer.isBuffer(body) ? body.toString('utf8') : null);
}

/**
 * A literal of the form, as the big-endian 32-bit words DataView reads: one word per 4 bytes, the last one ending
 * at the literal's end (overlapping the one before when the length is not a multiple of 4). Compared a word at a
 * time: byte by byte, the literals were the largest part of reading the form.
 */
interface Literal {
  length: number;
  words: Uint32Array;
}

function lit(s: string): Literal {
  const b = Buffer.from(s, 'latin1');
  if (b.length < 4) throw new Error('a literal of the form is at least 4 bytes');
  const n = Math.ceil(b.length / 4);
  const words = new Uint32Array(n);
  for (let i = 0; i < n; i++) words[i] = b.readUInt32BE(Math.min(4 * i, b.length - 4));
  return { length: b.length, words };
}
const HEAD = lit('{"data":{"bates":"');
const HASH_KEY = lit('","node_hash":"');
const NO_PARENT = lit('","parent_bates":null');
const PARENT_KEY = lit('","parent_bates":"');
const RECORDS_KEY = lit(',"records":[');
const KIND_SEQ = lit('},"kind":"node.add","seq":');
const TS_KEY = lit(',"ts":"');

/** The blob being read and a DataView of it (one per page: nodeAddForm reads one event at a time). */
let viewed: Uint8Array | undefined;
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
function viewOf(b: Uint8Array): DataView {
  if (b !== viewed) {
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    viewed = b;
  }
  return view;
}

/** Lets the last page's blob go (readClaims, once read: a long-lived process would otherwise keep it). */
function forgetView(): void {
  viewed = undefined;
  view = new DataView(new ArrayBuffer(0));
}

/** b[at, at + l.length) (dv its view) equals l, within [.., end). */
function literal(dv: DataView, at: number, end: number, l: Literal): boolean {
  if (at + l.length > end) return false;
  const last = l.words.length - 1;
  for (let i = 0; i < last; i++) if (dv.getUint32(at + 4 * i) !== l.words[i]) return false;
  return dv.getUint32(at + l.length - 4) === l.words[last];
}
/**
 * Byte classes, one bit each (a table: range tests per byte were most of the cost of reading the form). Hex digits
 * have their own table, HEX_PAIR.
 */
const DIGIT = 1;
const ID = 4;
const TS = 8;
const CLASS = new Uint8Array(256);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[0-9]/.test(ch)) CLASS[c] |= DIGIT;
  if (/[0-9a-z]/.test(ch)) CLASS[c] |= ID;
  // What a timestamp may hold here: nothing JSON escapes, nothing outside ASCII (the store writes ISO 8601).
  if (/[0-9A-Za-z:.+-]/.test(ch)) CLASS[c] |= TS;
}
const isDigit = (c: number) => (CLASS[c] & DIGIT) !== 0;

/** The node hash being read (nodeAddForm reads one event at a time). */
const nodeHash = new Uint8Array(32);

/**
 * Two bytes (first << 8 | second) that are two lower-case hex digits -> their value; -1 for any other pair. One
 * lookup a byte pair: testing and converting each digit on its own was a third of reading the form.
 */
const HEX_PAIR = new Int16Array(65536).fill(-1);
const HEX_DIGITS = '0123456789abcdef';
for (let hi = 0; hi < 16; hi++)
  for (let lo = 0; lo < 16; lo++)
    HEX_PAIR[(HEX_DIGITS.charCodeAt(hi) << 8) | HEX_DIGITS.charCodeAt(lo)] = (hi << 4) | lo;

/**
 * 64 lower-case hex digits at [at, at + 64) of the bytes dv views decoded into out; false (out then undefined) for
 * any other byte. A pair is one big-endian 16-bit read.
 */
function hexInto(dv: DataView, at: number, out: Uint8Array): boolean {
  let bad = 0;
  for (let i = 0; i < 32; i++) {
    const v = HEX_PAIR[dv.getUint16(at + 2 * i)];
    bad |= v; // negative once any pair is not hex
    out[i] = v;
  }
  return bad >= 0;
}

/** The value of the integer integerEnd read last (one event is read at a time; no object per integer). */
let integerValue = 0;

/**
 * Where an integer in canonical JSON (no sign, no leading zero, at most 15 digits, so an exact double) that starts
 * at b[at] ends, its value left in integerValue; -1 when none does.
 */
function integerEnd(b: Uint8Array, at: number, end: number): number {
  let p = at;
  let value = 0;
  while (p < end && p - at < 16 && isDigit(b[p])) value = value * 10 + (b[p++] - 48);
  const n = p - at;
  integerValue = value;
  return n === 0 || n > 15 || (n > 1 && b[at] === 48) ? -1 : p;
}

/**
 * A node.add event in the one form the store writes it (bulk.ts, nodeAddBody), read straight from its bytes
 * b[at, end) and applied; false, having applied nothing, for any other bytes. The body must be exactly
 *   {"data":{"bates":"SID-DIGITS","node_hash":"H","parent_bates":null|"P"[,"records":[a,b,c]]},
 *    "kind":"node.add","seq":S,"ts":"T"}
 * (one line) with SID and DIGITS as ChainClaims.added parses a Bates id (6 to 9 digits here), H 64 lower-case hex
 * digits, P of id characters, a, b and c canonical integers, S the seq column and T the ts column. Every part is a
 * literal or a value with nothing to unescape, no key can repeat and no byte outside ASCII is accepted, so
 * JSON.parse of the same bytes gives exactly these values and the general path would apply the same claim (and
 * find the columns agree). Turning each body into a string, JSON.parse and the general path's checks were three
 * quarters of rebuilding the claims. The ts column is tsList[tsAt, tsAt + tsLength) (a page's list, read in place),
 * by default all of it.
 */
export function nodeAddForm(
  claims: ChainClaims,
  seq: number,
  tsList: string,
  b: Buffer,
  at: number,
  end: number,
  tsAt = 0,
  tsLength = tsList.length - tsAt,
): boolean {
  if (!(at >= 0 && end <= b.length)) return false; // every read below stays in [at, end), or b[end]
  const dv = viewOf(b);
  if (!literal(dv, at, end, HEAD)) return false;
  const sid0 = at + HEAD.length;
  let p = sid0;
  while (p < end && (CLASS[b[p]] & ID) !== 0) p++;
  const sidEnd = p;
  if (sidEnd === sid0 || b[p++] !== 45) return false; // '-'
  let turn = 0;
  const digits0 = p;
  while (p < end && p - digits0 < 10 && isDigit(b[p])) turn = turn * 10 + (b[p++] - 48);
  const batesEnd = p;
  if (p - digits0 < 6 || p - digits0 > 9 || !literal(dv, p, end, HASH_KEY)) return false;
  const hexAt = p + HASH_KEY.length;
  if (hexAt + 64 > end || !hexInto(dv, hexAt, nodeHash)) return false;
  p = hexAt + 64;
  if (literal(dv, p, end, NO_PARENT)) p += NO_PARENT.length;
  else if (literal(dv, p, end, PARENT_KEY)) {
    p += PARENT_KEY.length;
    while (p < end && ((CLASS[b[p]] & ID) !== 0 || b[p] === 45)) p++;
    if (b[p++] !== 34) return false; // '"'
  } else return false;
  let records: { bates: string; chunk: number; start: number; length: number } | undefined;
  if (literal(dv, p, end, RECORDS_KEY)) {
    const chunkEnd = integerEnd(b, p + RECORDS_KEY.length, end);
    const chunk = integerValue;
    const startEnd = chunkEnd >= 0 && b[chunkEnd] === 44 ? integerEnd(b, chunkEnd + 1, end) : -1;
    const start = integerValue;
    const lengthEnd = startEnd >= 0 && b[startEnd] === 44 ? integerEnd(b, startEnd + 1, end) : -1;
    if (lengthEnd < 0 || b[lengthEnd] !== 93) return false; // ']'
    p = lengthEnd + 1;
    records = { bates: b.toString('latin1', sid0, batesEnd), chunk, start, length: integerValue };
  }
  if (!literal(dv, p, end, KIND_SEQ)) return false;
  const seqEnd = integerEnd(b, p + KIND_SEQ.length, end);
  if (seqEnd < 0 || integerValue !== seq || !literal(dv, seqEnd, end, TS_KEY)) return false;
  p = seqEnd + TS_KEY.length;
  if (p + tsLength + 2 !== end) return false;
  for (let i = 0; i < tsLength; i++) {
    const c = tsList.charCodeAt(tsAt + i);
    if (c > 127 || (CLASS[c] & TS) === 0 || b[p + i] !== c) return false;
  }
  if (b[end - 2] !== 34 || b[end - 1] !== 125) return false; // '"}'
  return claims.addedFromBytes(sidOf(b, sid0, sidEnd), turn, nodeHash, seq, records);
}

/**
 * Sids read before, by a hash of their bytes (a direct-mapped table of SID_SLOTS entries of at most SID_BYTES
 * bytes): a session's node.add events are spread over the chain between other sessions' (a few hundred sessions
 * grow at once), and making each event's sid a new string, then hashing it for the sessions map, was a fifth of
 * reading the form.
 */
const SID_SLOTS = 4096;
const SID_BYTES = 32;
const sidBytes = new Uint8Array(SID_SLOTS * SID_BYTES);
const sidLengths = new Int32Array(SID_SLOTS).fill(-1);
const sidStrings: string[] = new Array<string>(SID_SLOTS).fill('');

/** b[from, to) as a latin1 string (the caller has checked it is ASCII), the same string as before for the same bytes. */
function sidOf(b: Buffer, from: number, to: number): string {
  const n = to - from;
  if (n > SID_BYTES) return b.toString('latin1', from, to);
  let h = n;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], 0x01000193);
  const slot = (h >>> 0) % SID_SLOTS;
  const base = slot * SID_BYTES;
  let same = sidLengths[slot] === n;
  for (let i = 0; same && i < n; i++) same = b[from + i] === sidBytes[base + i];
  if (same) return sidStrings[slot];
  for (let i = 0; i < n; i++) sidBytes[base + i] = b[from + i];
  sidLengths[slot] = n;
  sidStrings[slot] = b.toString('latin1', from, to);
  return sidStrings[slot];
}

/**
 * Where each of the n values of a list joined by \x1f starts (starts[k]; starts[n] is one past the end, as if a
 * separator followed the last), or false when it does not split into exactly n: a value then holds the separator.
 * Positions, not strings: a page's 4,000 kinds and timestamps as strings were most of its garbage.
 */
function listStarts(list: string, n: number, starts: Int32Array): boolean {
  let at = 0;
  for (let k = 0; k < n - 1; k++) {
    starts[k] = at;
    const sep = list.indexOf('\x1f', at);
    if (sep < 0) return false;
    at = sep + 1;
  }
  starts[n - 1] = at;
  starts[n] = list.length + 1;
  return list.indexOf('\x1f', at) < 0;
}

/** lens[0] + ... + lens[n - 1]: a blob of another length (a database in UTF-16 re-encodes text) is not cut by them. */
function sum(lens: Float64Array, n: number): number {
  let total = 0;
  for (let k = 0; k < n; k++) total += lens[k];
  return total;
}

/**
 * Reads the chain once and rebuilds its claims. Bodies are read as stored (the bytes chain-check hashes); a body
 * that is not canonical JSON of an event is a problem here too, though chain-check names it first.
 */
export function readClaims(db: Database.Database): ChainClaims {
  const claims = new ChainClaims();
  const lens = new Float64Array(PAGE);
  const kindStarts = new Int32Array(PAGE + 1);
  const tsStarts = new Int32Array(PAGE + 1);
  const fast = db.prepare(FAST_PAGE_SQL).raw(true);
  const rows = db
    .prepare(
      'SELECT seq, kind, ts, body FROM audit_events NOT INDEXED WHERE seq > ? AND seq <= ? ORDER BY seq',
    )
    .raw(true);
  const nextSeq = db.prepare('SELECT min(seq) FROM audit_events NOT INDEXED WHERE seq > ?').pluck();
  const [low, high] = db
    // Each from its end of the b-tree: min(seq), max(seq) in one query scans every event (~280 ms per 1M).
    .prepare(
      'SELECT (SELECT min(seq) FROM audit_events NOT INDEXED), (SELECT max(seq) FROM audit_events NOT INDEXED)',
    )
    .safeIntegers(true)
    .raw(true)
    .get() as [bigint | null, bigint | null];
  if (low === null || high === null) return claims;
  // Pages are ranges of numbers: only a rowid seq (see eventsSeqIsRowid) within what a double holds exactly.
  const safe = (v: bigint) =>
    v >= BigInt(Number.MIN_SAFE_INTEGER) + 1n && v <= BigInt(Number.MAX_SAFE_INTEGER);
  if (!eventsSeqIsRowid(db) || !safe(low) || !safe(high)) {
    const all = db.prepare('SELECT seq, kind, ts, body FROM audit_events NOT INDEXED ORDER BY seq').raw(true);
    for (const row of all.iterate() as IterableIterator<EventRow>) applyRow(claims, row);
    return claims;
  }
  const first = Number(low);
  const last = Number(high);
  for (let lo = first - 1; lo < last; ) {
    const hi = Math.min(lo + PAGE, last);
    const [n, lenList, kindList, tsList, blob, odd] = fast.get(lo, hi) as FastPage;
    if (n === 0) {
      // A gap in the seqs (they are consecutive unless edited): jump to the next one.
      const next = nextSeq.get(hi) as number | null;
      if (next === null) break;
      lo = Math.max(next - 1, hi); // never back: a damaged index may answer a seq it just said is not there
      continue;
    }
    const whole =
      n === hi - lo &&
      odd === 0 &&
      blob !== null &&
      integerList(lenList, lens, 0, n) &&
      sum(lens, n) === blob.length;
    if (whole && listStarts(kindList, n, kindStarts) && listStarts(tsList, n, tsStarts)) {
      let at = 0;
      for (let k = 0; k < n; k++) {
        const end = at + lens[k];
        const seq = lo + 1 + k;
        const kindAt = kindStarts[k];
        const tsAt = tsStarts[k];
        const tsLength = tsStarts[k + 1] - 1 - tsAt;
        const isAdd = kindStarts[k + 1] - 1 - kindAt === 8 && kindList.startsWith('node.add', kindAt);
        if (!(isAdd && nodeAddForm(claims, seq, tsList, blob, at, end, tsAt, tsLength)))
          applyEvent(
            claims,
            seq,
            kindList.slice(kindAt, kindStarts[k + 1] - 1),
            tsList.slice(tsAt, tsAt + tsLength),
            blob.toString('utf8', at, end),
          );
        at = end;
      }
    } else {
      for (const row of rows.all(lo, hi) as EventRow[]) applyRow(claims, row);
    }
    lo = hi;
  }
  forgetView();
  return claims;
}
