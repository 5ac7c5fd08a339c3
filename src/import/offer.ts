import { existsSync } from 'node:fs';
import { READER_KINDS, readerFor } from './index.js';

/**
 * The histories on this machine, for the first start on an empty shard: each reader's default paths that exist,
 * with how many files they hold. Cheap (a directory walk, no file is read) and bounded: a reader that fails to
 * list its folder is left out rather than delaying the first screen.
 */

export interface HistoryFound {
  kind: string;
  /** What a person calls it. */
  label: string;
  path: string;
  files: number;
}

const LABELS: Record<string, string> = { claude: 'Claude Code', openclaw: 'OpenClaw', llm: 'llm' };

export function findHistories(env: NodeJS.ProcessEnv): HistoryFound[] {
  const out: HistoryFound[] = [];
  for (const kind of READER_KINDS) {
    if (kind === 'arborist') continue;
    const reader = readerFor(kind, { sidechains: true });
    if (!reader) continue;
    for (const path of reader.defaultPaths(env)) {
      if (!existsSync(path)) continue;
      try {
        const files = reader.discover(path).length;
        if (files > 0) out.push({ kind, label: LABELS[kind] ?? kind, path, files });
      } catch {
        // unreadable: not offered
      }
    }
  }
  return out;
}
