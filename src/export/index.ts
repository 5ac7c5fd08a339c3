import { ArboristError, agentOf, type SessionSource, type Shard } from '../store/index.js';
import { renderHtml } from './html.js';
import { type ExportOrigin, exportDocument, renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { type Selection, selectTurns } from './select.js';

/**
 * Exports: a turn's path, a subtree or a session as markdown, one self-contained HTML file, or a JSON document
 * that another shard can check and import (docs/export.md). Reads the shard through the Shard facade only.
 */

export const FORMATS = ['md', 'json', 'html'] as const;
export type ExportFormat = (typeof FORMATS)[number];

export function isFormat(x: string): x is ExportFormat {
  return (FORMATS as readonly string[]).includes(x);
}

export interface ExportOptions {
  /** A Bates id, a sid or a session label. */
  id: string;
  format: ExportFormat;
  /** With a Bates id: the turn and everything under it, instead of its path from the root. */
  subtree?: boolean;
  /** The export's own time (ISO 8601); now by default. */
  now?: string;
}

export function render(
  sel: Selection,
  format: ExportFormat,
  exportedAt: string,
  records?: (bates: string) => Buffer | undefined,
  originOf?: (sid: string) => ExportOrigin | undefined,
): string {
  if (format === 'json') return renderJson(exportDocument(sel, exportedAt, records, originOf));
  if (format === 'html') return renderHtml(sel, exportedAt);
  return renderMarkdown(sel, exportedAt);
}

/**
 * `--format source`: the source records of the selected imported turns, byte for byte as the tool wrote them
 * (each record followed by a newline): a session's in Bates order (parents first, then by time: the order they
 * were read in), a path's from its root, a subtree's in tree order. Context turns of other sessions are left out
 * of a session's records. Raw bytes: the CLI never prints them to a terminal.
 */
export function exportSource(shard: Shard, opts: Omit<ExportOptions, 'format'>): Buffer {
  const sel = selectTurns(shard, opts.id, { subtree: opts.subtree });
  const turns = sel.turns.filter((t) => !t.context).map((t) => t.node);
  if (sel.kind === 'session') turns.sort((a, b) => a.seq - b.seq);
  // One lookup for every turn: each record chunk is decompressed and checked once, not once per turn (a 295-turn
  // Claude Code session took 7 s that way).
  const records = shard.sourceRecordsOf(turns.map((n) => n.bates));
  const parts: Buffer[] = [];
  for (const n of turns) {
    const r = records.get(n.bates);
    if (r) parts.push(r);
  }
  if (parts.length === 0)
    throw new ArboristError('not_found', `${opts.id} holds no source records (its turns were not imported)`);
  return Buffer.concat(parts);
}

/** The export as text, ready to print or to write with writeFileAtomic. */
export function exportText(shard: Shard, opts: ExportOptions): string {
  if (!isFormat(opts.format)) {
    throw new ArboristError('usage', `unknown format '${opts.format}' (md, json or html)`);
  }
  const sel = selectTurns(shard, opts.id, { subtree: opts.subtree });
  // Only the JSON document carries records; read them in one pass (see exportSource).
  const records =
    opts.format === 'json'
      ? shard.sourceRecordsOf(sel.turns.map((t) => t.node.bates))
      : new Map<string, Buffer>();
  return render(
    sel,
    opts.format,
    opts.now ?? new Date().toISOString(),
    (b) => records.get(b),
    (sid) => originOf(shard.sourceOfSession(sid)),
  );
}

/** A session's origin as the export carries it: its agent and what the source named (none for a session asked here). */
function originOf(o: SessionSource | undefined): ExportOrigin | undefined {
  const agent = agentOf(o);
  if (agent === null || o === undefined) return undefined;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const cwd = text(o.info.cwd);
  const project = text(o.info.project);
  const title = text(o.info.title);
  return { agent, ...(cwd ? { cwd } : {}), ...(project ? { project } : {}), ...(title ? { title } : {}) };
}

export { CSP } from './html.js';
export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportDocument,
  type ExportSessionJson,
  type ExportTurnJson,
  exportDocument,
  renderJson,
} from './json.js';
export { renderMarkdown } from './markdown.js';
export {
  type ExportedTurn,
  type OutsideChild,
  type Selection,
  type SelectionKind,
  selectTurns,
  treeOrder,
} from './select.js';
export { writeFileAtomic } from './write.js';
