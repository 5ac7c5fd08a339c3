import { existsSync } from 'node:fs';
import { SOURCE_KINDS, SOURCES } from './sources.js';

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

export function findHistories(env: NodeJS.ProcessEnv): HistoryFound[] {
  const out: HistoryFound[] = [];
  for (const kind of SOURCE_KINDS) {
    const source = SOURCES[kind];
    if (!source.findable) continue;
    const reader = source.reader({ sidechains: true });
    for (const path of reader.defaultPaths(env)) {
      if (!existsSync(path)) continue;
      try {
        const files = reader.discover(path).length;
        if (files > 0) out.push({ kind, label: source.name, path, files });
      } catch {
        // unreadable: not offered
      }
    }
  }
  return out;
}
