import { ArboristError, type Shard } from '../store/index.js';
import { renderHtml } from './html.js';
import { exportDocument, renderJson } from './json.js';
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

export function render(sel: Selection, format: ExportFormat, exportedAt: string): string {
  if (format === 'json') return renderJson(exportDocument(sel, exportedAt));
  if (format === 'html') return renderHtml(sel, exportedAt);
  return renderMarkdown(sel, exportedAt);
}

/** The export as text, ready to print or to write with writeFileAtomic. */
export function exportText(shard: Shard, opts: ExportOptions): string {
  if (!isFormat(opts.format)) {
    throw new ArboristError('usage', `unknown format '${opts.format}' (md, json or html)`);
  }
  const sel = selectTurns(shard, opts.id, { subtree: opts.subtree });
  return render(sel, opts.format, opts.now ?? new Date().toISOString());
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
export { type ExportedTurn, type Selection, type SelectionKind, selectTurns, treeOrder } from './select.js';
export { writeFileAtomic } from './write.js';
