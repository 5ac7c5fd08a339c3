import { checkNewTurn, formatBates, hashes, type TurnContent } from '../store/index.js';
import { oneLine } from '../text/sanitize.js';

/**
 * A turn file of a host's branch read as the store keeps a turn (docs/sync.md, "Trust", 4): pull.ts checks each new
 * one with it, run.ts reads each again by blob id before the import.
 */

/** A turn file's bytes as a turn: its content when they are exactly the canonical bytes of one, else a reason. */
export function readTurn(
  buf: Buffer,
  sid: string,
  seq: number,
): { content: TurnContent; node_hash: string } | string {
  const text = buf.toString('utf8');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'is not a turn';
  const c = v as TurnContent;
  // The store's own canonical form of the hashed fields: equal bytes mean exactly these fields, exactly so written.
  let canon: string;
  try {
    canon = hashes.nodeContentJson(c);
  } catch {
    return 'is not a turn';
  }
  if (canon !== text || !Buffer.from(canon, 'utf8').equals(buf)) return 'is not the canonical JSON of a turn';
  if (c.bates !== formatBates(sid, seq))
    return `holds ${oneLine(String(c.bates).slice(0, 40))}, not the turn its path names`;
  // Canonical is not enough: a number for a question is canonical too. The store's own checks of a new turn, here, so
  // that a bad turn refuses its host, named, rather than stopping the writer and the whole sync with it.
  if (typeof c.created_at !== 'string' || (c.parent_bates !== null && typeof c.parent_bates !== 'string'))
    return 'is not a turn (created_at or parent_bates is not text)';
  // And as the store keeps it: a field the checks would fill in (a null audit) or mend (a lone surrogate) changes the
  // hash the writer expects. Compared field by field: a second canonical form cost ~0.5 s per 100,000 turns.
  try {
    const k = checkNewTurn(c as never);
    if (
      k.audit !== c.audit ||
      k.question !== c.question ||
      k.answer_text !== c.answer_text ||
      k.cited_titles.some((x, i) => x !== c.cited_titles[i])
    )
      return 'is not a turn as the store keeps one';
  } catch (err) {
    return `is not a turn (${oneLine(String((err as Error).message)).slice(0, 80)})`;
  }
  const node_hash = hashes.sha256(Buffer.concat([hashes.LEAF, buf])).toString('hex');
  return { content: c, node_hash };
}
