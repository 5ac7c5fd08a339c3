import { gunzipSync } from 'node:zlib';
import { damaged } from '../base/errors.js';
import type { ArchivedNodeRow } from '../model/rows.js';

/** The archive body's format: what archive.ts writes and everything that reads an archive (restore, find, verify). */

/** Why a session was archived: an entry's reset, its deletion, or a retention rule (or by hand). */
export type ArchiveReason = 'reset' | 'deleted' | 'retention';

export const ARCHIVE_FORMAT = 'arborist-archive/1';
/**
 * The most an archive body may inflate to. Every decompression is bounded by it: a body is stored data, and a
 * 2 MB gzip can inflate to 2 GiB (a shard from elsewhere, or an attacker's edit). Archiving refuses a session whose
 * document would be larger, so every archive this code writes can be read back.
 */
export const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;

/** The archive document: canon() of this, gzipped, is session_archives.body. */
export interface ArchiveDocument {
  format: 'arborist-archive/1';
  archive: { reason: ArchiveReason; archived_at: string; why: string[] };
  session: {
    sid: string;
    label: string | null;
    created_at: string;
    next_seq: number;
    n_nodes: number;
    session_root: string;
  };
  nodes: ArchivedNodeRow[];
}

export function decodeBody(sid: string, body: Buffer): ArchiveDocument {
  let doc: ArchiveDocument;
  let json: Buffer;
  try {
    json = gunzipSync(body, { maxOutputLength: MAX_ARCHIVE_BYTES });
  } catch (err) {
    const tooBig = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw damaged(
      tooBig
        ? `archive ${sid} is damaged: its body inflates past 256 MiB; not decompressed`
        : `archive ${sid} is damaged: its body cannot be read`,
    );
  }
  try {
    doc = JSON.parse(json.toString('utf8')) as ArchiveDocument;
  } catch {
    throw damaged(`archive ${sid} is damaged: its body cannot be read`);
  }
  if (doc.format !== ARCHIVE_FORMAT || doc.session?.sid !== sid || !Array.isArray(doc.nodes)) {
    throw damaged(`archive ${sid} is damaged: its body is not an archive of ${sid}`);
  }
  return doc;
}
