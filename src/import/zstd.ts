/**
 * Bounded Zstandard decoding (Node 20's zlib has none; fzstd is a pure-JS decoder, docs/dependencies.md). The
 * stream decoder hands out chunks, so a frame that inflates past its bound is stopped there instead of allocated.
 */
import { Decompress } from 'fzstd';

class TooLarge extends Error {}

/** Decodes `data`, refusing to produce more than `limit` bytes. Throws an Error with a one-line message. */
export function unzstd(data: Uint8Array, limit: number): Buffer {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const d = new Decompress((chunk) => {
    total += chunk.length;
    if (total > limit) throw new TooLarge(`zstd data inflates past ${limit} bytes`);
    chunks.push(chunk);
  });
  try {
    d.push(data, true);
  } catch (e) {
    if (e instanceof TooLarge) throw e;
    throw new Error(`not valid zstd data (${e instanceof Error ? e.message : String(e)})`);
  }
  return Buffer.concat(chunks, total);
}
