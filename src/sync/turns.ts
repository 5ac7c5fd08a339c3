import { formatBates, parseBates } from '../store/index.js';

/**
 * The new turns of one host's pull, compact (docs/sync.md, "Speed"): typed arrays and raw ids rather than an object
 * and five strings a turn, since a first pull holds every turn of another host (a million) from its check to its
 * import. A turn's content is never kept: it is read again from its blob, a batch at a time.
 */

const HASH = 32;

/** A Uint32/Float64 array that grows by doubling, as a listing's length is not known ahead. */
function grown<T extends Uint32Array | Int32Array | Float64Array>(
  a: T,
  need: number,
  make: (n: number) => T,
): T {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2, 1024));
  b.set(a);
  return b;
}

export class PulledTurns {
  /** Each distinct sid of the turns, in the order first listed; `sidOf` indexes it. */
  readonly sids: string[] = [];
  private readonly sidIndex = new Map<string, number>();
  /** Parents' sids (this host's, another's or one here), interned the same way; `parentSidOf` indexes it. */
  readonly parentSids: string[] = [];
  private readonly parentSidIndex = new Map<string, number>();
  length = 0;
  sidOf = new Uint32Array(0);
  seq = new Float64Array(0);
  /** Blob ids in the mirror, `oidLen` bytes each. */
  blobs = Buffer.alloc(0);
  oidLen = 20;
  /** Node hashes, 32 bytes each: what the host's chain claimed, and (once checked) what the turn file hashes to. */
  hashes = Buffer.alloc(0);
  /** -1: a root, or a parent that is no Bates id (it orders nothing). */
  parentSidOf = new Int32Array(0);
  parentSeq = new Float64Array(0);
  /** After seal(): where each sid's turns start, sorted by seq, in the arrays. */
  private start = new Uint32Array(0);

  /** Adds a listed turn file: its sid, seq and blob id (hex). */
  add(sid: string, seq: number, blobHex: string): void {
    const i = this.length++;
    let s = this.sidIndex.get(sid);
    if (s === undefined) {
      s = this.sids.length;
      this.sids.push(sid);
      this.sidIndex.set(sid, s);
    }
    this.sidOf = grown(this.sidOf, this.length, (n) => new Uint32Array(n));
    this.seq = grown(this.seq, this.length, (n) => new Float64Array(n));
    if (i === 0) this.oidLen = blobHex.length / 2;
    if (this.blobs.length < this.length * this.oidLen) {
      const b = Buffer.alloc(Math.max(this.length, this.sidOf.length) * this.oidLen);
      this.blobs.copy(b);
      this.blobs = b;
    }
    this.sidOf[i] = s;
    this.seq[i] = seq;
    // A blob id of another length (or not hex) is written as it parses; reading it back then finds no such blob.
    this.blobs.write(blobHex, i * this.oidLen, this.oidLen, 'hex');
  }

  /**
   * Sorts the turns by sid (in the order first listed) then seq, which is git's tree order already for honest
   * files (seqs of six digits), and makes room for the hashes and parents. Returns the index of a turn listed twice
   * (two files naming one Bates id: `000001.json` and `0000001.json`), else -1.
   */
  seal(): number {
    const n = this.length;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = this.cmp(i - 1, i) < 0;
    if (!sorted) {
      const perm = new Uint32Array(n);
      for (let i = 0; i < n; i++) perm[i] = i;
      perm.sort((a, b) => this.cmp(a, b));
      const sidOf = new Uint32Array(n);
      const seq = new Float64Array(n);
      const blobs = Buffer.alloc(n * this.oidLen);
      for (let i = 0; i < n; i++) {
        const j = perm[i];
        sidOf[i] = this.sidOf[j];
        seq[i] = this.seq[j];
        this.blobs.copy(blobs, i * this.oidLen, j * this.oidLen, (j + 1) * this.oidLen);
      }
      this.sidOf = sidOf;
      this.seq = seq;
      this.blobs = blobs;
    }
    this.sidOf = this.sidOf.slice(0, n);
    this.seq = this.seq.slice(0, n);
    this.blobs = Buffer.from(this.blobs.subarray(0, n * this.oidLen));
    this.hashes = Buffer.alloc(n * HASH);
    this.parentSidOf = new Int32Array(n).fill(-1);
    this.parentSeq = new Float64Array(n);
    this.start = new Uint32Array(this.sids.length + 1);
    this.start.fill(n);
    for (let i = n - 1; i >= 0; i--) this.start[this.sidOf[i]] = i;
    for (let i = 1; i < n; i++) if (this.cmp(i - 1, i) === 0) return i;
    return -1;
  }

  private cmp(a: number, b: number): number {
    return this.sidOf[a] - this.sidOf[b] || this.seq[a] - this.seq[b];
  }

  /** The index of the turn with this Bates id (exactly as formatBates writes it), or -1. */
  indexOf(bates: string): number {
    const p = parseBates(bates);
    if (p === null) return -1;
    const i = this.find(p.sid, p.seq);
    return i >= 0 && this.bates(i) === bates ? i : -1;
  }

  /** The index of the turn (sid, seq), by binary search in its sid's run, or -1. */
  find(sid: string, seq: number): number {
    const s = this.sidIndex.get(sid);
    if (s === undefined) return -1;
    // Sorted by (sid, seq): the search runs from the sid's first turn.
    let a = this.start[s];
    let hi = this.length;
    while (a < hi) {
      const m = (a + hi) >>> 1;
      if (this.sidOf[m] < s || (this.sidOf[m] === s && this.seq[m] < seq)) a = m + 1;
      else hi = m;
    }
    return a < this.length && this.sidOf[a] === s && this.seq[a] === seq ? a : -1;
  }

  /** The indexes of session `sid`'s turns, [from, to) (sealed: a sid's turns are together); [0, 0) when none. */
  rangeOf(sid: string): [number, number] {
    const s = this.sidIndex.get(sid);
    if (s === undefined) return [0, 0];
    const from = this.start[s];
    let to = from;
    while (to < this.length && this.sidOf[to] === s) to++;
    return [from, to];
  }

  hasSid(sid: string): boolean {
    return this.sidIndex.has(sid);
  }

  sid(i: number): string {
    return this.sids[this.sidOf[i]];
  }

  bates(i: number): string {
    return formatBates(this.sids[this.sidOf[i]], this.seq[i]);
  }

  blobHex(i: number): string {
    return this.blobs.toString('hex', i * this.oidLen, (i + 1) * this.oidLen);
  }

  hashHex(i: number): string {
    return this.hashes.toString('hex', i * HASH, (i + 1) * HASH);
  }

  hashIs(i: number, hex: string): boolean {
    return hex.length === 2 * HASH && this.hashHex(i) === hex;
  }

  setHash(i: number, hex: string): void {
    this.hashes.write(hex, i * HASH, HASH, 'hex');
  }

  /** The same turns, sealed, hashes and parents kept, without those of `drop`'s sessions. */
  without(drop: ReadonlySet<string>): PulledTurns {
    const out = new PulledTurns();
    const kept: number[] = [];
    for (let i = 0; i < this.length; i++)
      if (!drop.has(this.sid(i))) {
        out.add(this.sid(i), this.seq[i], this.blobHex(i));
        kept.push(i);
      }
    out.seal(); // already in (sid, seq) order: nothing moves
    kept.forEach((i, j) => {
      this.hashes.copy(out.hashes, j * HASH, i * HASH, (i + 1) * HASH);
      const ps = this.parentSidOf[i];
      if (ps >= 0) out.setParent(j, formatBates(this.parentSids[ps], this.parentSeq[i]));
    });
    return out;
  }

  setParent(i: number, parent: string | null): void {
    const p = parent === null ? null : parseBates(parent);
    // Only a parent written exactly as a Bates id can be a pulled turn (the order looks parents up by it).
    if (p === null || formatBates(p.sid, p.seq) !== parent) {
      this.parentSidOf[i] = -1;
      return;
    }
    let s = this.parentSidIndex.get(p.sid);
    if (s === undefined) {
      s = this.parentSids.length;
      this.parentSids.push(p.sid);
      this.parentSidIndex.set(p.sid, s);
    }
    this.parentSidOf[i] = s;
    this.parentSeq[i] = p.seq;
  }
}
