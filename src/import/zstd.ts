/**
 * Bounded Zstandard decoding (Node 20's zlib has none; fzstd is a pure-JS decoder, docs/dependencies.md). The
 * stream decoder hands out chunks, so a frame that inflates past its bound is stopped there instead of allocated.
 *
 * The frames are looked over first (RFC 8878, section 3.1.1): fzstd allocates the window a frame header claims (up
 * to 2 GiB) and slides the whole window for every block, so a few KB of tiny blocks under a huge window would cost
 * gigabytes and hours. A window over 128 MiB is refused, as zstd's own decoder refuses one by default
 * (ZSTD_WINDOWLOG_LIMIT_DEFAULT), and so is a frame whose blocks would slide more than WORK_BYTES of window.
 */
import { Decompress } from 'fzstd';

class TooLarge extends Error {}

/** The largest window decoded: zstd's default limit (windowLog 27). */
const MAX_WINDOW = 128 * 2 ** 20;
/** The bytes fzstd may move sliding windows, in all: 1 GiB in full 128 KiB blocks under an 8 MiB window. */
const WORK_BYTES = 64 * 2 ** 30;
/** Past this many bytes inflated, chunks are counted, not kept, until the whole is known to be within bounds. */
const KEEP_BYTES = 64 * 2 ** 20;

const mib = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;

const u32 = (d: Uint8Array, at: number) =>
  (d[at] | (d[at + 1] << 8) | (d[at + 2] << 16) | (d[at + 3] << 24)) >>> 0;

/**
 * What the frames of `data` would cost, from their headers alone: a reason to refuse them, or the bytes their RLE
 * and raw blocks alone inflate to. Undefined fields where the data is not well-formed: fzstd says why.
 */
function survey(data: Uint8Array, limit: number): { refuse?: string; known: number } {
  let p = 0;
  let known = 0;
  let work = 0;
  while (p + 4 <= data.length) {
    const magic = u32(data, p);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // a skippable frame: its size, then that many bytes
      if (p + 8 > data.length) break;
      p += 8 + u32(data, p + 4);
      continue;
    }
    if (magic !== 0xfd2fb528 || p + 5 > data.length) break;
    const fhd = data[p + 4];
    const single = (fhd >> 5) & 1;
    const fcsFlag = fhd >> 6;
    const dictBytes = [0, 1, 2, 4][fhd & 3];
    let q = p + 5;
    let window = 0;
    if (!single) {
      const wd = data[q++];
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    q += dictBytes;
    const fcsBytes = fcsFlag ? 1 << fcsFlag : single;
    let fcs = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) fcs = fcs * 256 + (data[q + i] ?? 0);
    if (fcsFlag === 1) fcs += 256;
    q += fcsBytes;
    if (single) window = fcs;
    if (fcs > limit) return { refuse: `zstd data inflates past ${limit} bytes`, known };
    if (window > MAX_WINDOW)
      return { refuse: `a zstd frame asks for a window of ${mib(window)} (over 128 MiB)`, known };
    for (;;) {
      if (q + 3 > data.length) return { known };
      const h = data[q] | (data[q + 1] << 8) | (data[q + 2] << 16);
      const type = (h >> 1) & 3;
      const size = h >> 3;
      q += 3 + (type === 1 ? 1 : size);
      if (type === 0 || type === 1) known += size;
      work += window;
      if (known > limit) return { refuse: `zstd data inflates past ${limit} bytes`, known };
      if (work > WORK_BYTES)
        return {
          refuse: `a zstd frame of many small blocks under a ${mib(window)} window; too costly`,
          known,
        };
      if (h & 1) break;
    }
    p = q + ((fhd >> 2) & 1 ? 4 : 0);
  }
  return { known };
}

/** Inflates `data`, each chunk to `take`; throws TooLarge past `limit` bytes, or an Error for bad data. */
function inflate(data: Uint8Array, limit: number, take: (chunk: Uint8Array) => void): number {
  let total = 0;
  const d = new Decompress((chunk) => {
    total += chunk.length;
    if (total > limit) throw new TooLarge(`zstd data inflates past ${limit} bytes`);
    take(chunk);
  });
  try {
    d.push(data, true);
  } catch (e) {
    if (e instanceof TooLarge) throw e;
    throw new Error(`not valid zstd data (${e instanceof Error ? e.message : String(e)})`);
  }
  return total;
}

/** Decodes `data`, refusing to produce more than `limit` bytes. Throws an Error with a one-line message. */
export function unzstd(data: Uint8Array, limit: number): Buffer {
  const { refuse } = survey(data, limit);
  if (refuse !== undefined) throw new TooLarge(refuse);
  // A frame that inflates past the limit must not be held until it gets there: past KEEP_BYTES the chunks are
  // only counted, and the data inflated again, kept, once it is known to fit.
  let chunks: Uint8Array[] | undefined = [];
  let kept = 0;
  const total = inflate(data, limit, (chunk) => {
    if (chunks === undefined) return;
    kept += chunk.length;
    if (kept > KEEP_BYTES && limit > KEEP_BYTES) chunks = undefined;
    else chunks.push(chunk);
  });
  if (chunks !== undefined) return Buffer.concat(chunks, total);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  inflate(data, limit, (chunk) => {
    out.set(chunk, at);
    at += chunk.length;
  });
  return out;
}
