/**
 * The Pi reader (badlogic/pi-mono, the coding agent): one JSONL session file into one ParsedSource. Pi's format is
 * the one OpenClaw's transcripts use, so the records and the turn builder are shared (../pi-format); what is pi's
 * own is where the files are (paths.ts) and how a forked session links to the one it came from (lineage.ts).
 * Format facts and their public sources: docs/import.md (Pi).
 */
import { join } from 'node:path';
import { readHead, readRegular, wideText } from '../files.js';
import { emptySource, type ParsedSource, type SourceReader } from '../model.js';
import { readJsonlSession } from '../pi-format/jsonl.js';
import type { Problems } from '../pi-format/records.js';
import { fallbackSessionId, lineageOf, MAX_FILE_BYTES } from './lineage.js';
import { agentDir, discover } from './paths.js';

export function readPiFile(file: string): ParsedSource {
  const buf = readRegular(file, MAX_FILE_BYTES).buf;
  const p: Problems = { file, prefix: '', list: [] };
  const wide = wideText(buf);
  if (wide !== undefined) {
    const problems = [{ file, line: 0, reason: wide }];
    return emptySource('pi', file, problems);
  }
  const read = readJsonlSession(buf, p, {
    tool: 'Pi',
    fallbackSessionId: fallbackSessionId(file),
    growing: true,
    lineage: (header) => lineageOf(file, header),
  });
  return {
    kind: 'pi',
    file,
    sessions: read ? [read.out.session] : [],
    turns: read ? read.out.turns : [],
    entries: [],
    problems: p.list.sort((a, b) => a.line - b.line),
  };
}

/** Bytes of a session file's head searched for its header line. */
const HEADER_BYTES = 64 * 1024;

/**
 * True when the file's first line is a header that names no parent. A fork is read with the file its header names
 * (and that one's ancestors, lineage.ts), found by a search that a fingerprint cannot follow: it is read every time.
 * A file settled by an import has its header on line 1 (a header elsewhere, or none, is a problem).
 */
function headerNamesNoParent(file: string): boolean {
  let head: string;
  try {
    head = readHead(file, HEADER_BYTES).toString('utf8');
  } catch {
    return false; // read, and the reader says why
  }
  const end = head.indexOf('\n');
  if (end < 0) return false;
  try {
    const h = JSON.parse(head.slice(0, end).replace(/^\uFEFF/, '')) as Record<string, unknown>;
    return (
      typeof h === 'object' &&
      h !== null &&
      h.type === 'session' &&
      h.parentSession === undefined &&
      h.branchedFrom === undefined
    );
  } catch {
    return false;
  }
}

export const piReader: SourceReader = {
  kind: 'pi',
  defaultPaths: (env) => [join(agentDir(env), 'sessions')],
  discover,
  read: (file) => [readPiFile(file)],
  inputs: (file) => (headerNamesNoParent(file) ? { reader: 'pi', files: [file] } : undefined),
};
