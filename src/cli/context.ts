import { existsSync, statSync } from 'node:fs';
import { shardPathFromFlag } from '../config/index.js';
import { ArboristError, Shard } from '../store/index.js';
import type { Parsed } from './args.js';
import { makeOutput, type Output, oneLine } from './output.js';

export interface Context {
  out: Output;
  dbPath: string;
  env: NodeJS.ProcessEnv;
  /**
   * Opens the shard for writing (created when missing). `cacheKib`: SQLite's page cache (default 64 MiB), smaller
   * for a process that stays resident (the keeper).
   */
  writable(cacheKib?: number): Shard;
  /**
   * Opens an existing shard for reading. A missing file is an error rather than a new empty shard, so a
   * mistyped --db path is noticed instead of answering "nothing found". A read-only file is opened read-only.
   */
  readable(): Shard;
  /**
   * Opens an existing shard for reading only (OpenOptions.inspect): for the checks, which must neither upgrade nor
   * otherwise write the shard they check (an upgrade would also move the chain head they compare).
   */
  readOnly(): Shard;
  close(): void;
}

/** A long schema upgrade, said before it starts (on stderr: stdout may be a pipe of JSON). */
function announce(note: string): void {
  process.stderr.write(`arborist: ${oneLine(note)}\n`);
}

/** A missing file is an error rather than a new empty shard, so a mistyped --db path is noticed. */
function mustExist(dbPath: string): void {
  if (!existsSync(dbPath))
    throw new ArboristError(
      'shard',
      `no shard at ${dbPath} (create one with \`arborist new\` or \`arborist demo\`)`,
    );
}

export function makeContext(p: Parsed, env: NodeJS.ProcessEnv): Context {
  // `--db "$UNSET"` must not quietly mean the default shard: an empty path is a mistake, said as one.
  const dbPath = shardPathFromFlag(p.values.db, env);
  const out = makeOutput(p.values.json === true, env, p.values['no-color'] === true);
  let shard: Shard | undefined;
  // --durable (or ARBORIST_SYNC=full, read by the store): each commit reaches the disk before it returns.
  const durable = p.values.durable === true ? true : undefined;
  return {
    out,
    dbPath,
    env,
    writable(cacheKib?: number) {
      shard ??= Shard.open(dbPath, { durable, onUpgrade: announce, cacheKib });
      return shard;
    },
    readable() {
      if (shard) return shard;
      mustExist(dbPath);
      const st = statSync(dbPath);
      const readOnlyFile = st.isFile() && (st.mode & 0o200) === 0;
      shard = Shard.open(dbPath, { readonly: readOnlyFile, durable, onUpgrade: announce });
      return shard;
    },
    readOnly() {
      if (shard) return shard;
      mustExist(dbPath);
      const st = statSync(dbPath);
      shard = Shard.open(dbPath, { readonly: st.isFile() && (st.mode & 0o200) === 0, inspect: true });
      return shard;
    },
    close() {
      shard?.close();
      shard = undefined;
    },
  };
}
