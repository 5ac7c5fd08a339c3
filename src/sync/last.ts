import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * When each remote last synced, kept in the mirror (`arborist-last-sync.json`) for `status`: it runs every few
 * seconds from its own small bundle, so it reads one small file rather than the shard's sync events. A hint for
 * display only (the chain's `sync` events are the record). Only node builtins here: the status bundle imports it.
 */

const FILE = 'arborist-last-sync.json';

function pathOf(dbPath: string): string {
  return `${dbPath}.sync/${FILE}`;
}

export interface LastSync {
  /** ISO 8601: when the sync ended. */
  at: string;
  /** Seconds since then. */
  age_s: number;
}

/** Each remote's last sync, by name; empty when this shard never synced. */
export function lastSyncs(dbPath: string, now = Date.now()): Record<string, LastSync> {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(pathOf(dbPath), 'utf8'));
  } catch {
    return {};
  }
  const out: Record<string, LastSync> = {};
  if (typeof v !== 'object' || v === null) return out;
  for (const [name, at] of Object.entries(v as Record<string, unknown>)) {
    const t = typeof at === 'string' ? Date.parse(at) : Number.NaN;
    if (Number.isFinite(t))
      out[name] = { at: at as string, age_s: Math.max(0, Math.round((now - t) / 1000)) };
  }
  return out;
}

/** Records that `remote` synced now (written whole, then renamed: a reader never sees half a file). */
export function noteSync(dbPath: string, remote: string): void {
  const all: Record<string, string> = {};
  for (const [name, s] of Object.entries(lastSyncs(dbPath))) all[name] = s.at;
  all[remote] = new Date().toISOString();
  const tmp = `${pathOf(dbPath)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(all)}\n`, { mode: 0o600 });
  renameSync(tmp, pathOf(dbPath));
}
