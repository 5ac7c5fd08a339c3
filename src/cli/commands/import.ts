import { existsSync } from 'node:fs';
import { followImport } from '../../import/follow.js';
import { READER_KINDS, readerFor, SOURCE_KINDS, SOURCES } from '../../import/index.js';
import type { ImportProblem } from '../../import/model.js';
import { findHistories } from '../../import/offer.js';
import { emptyImportSummary, type ImportSummary, type Progress, runImport } from '../../import/run.js';
import { ArboristError } from '../../store/index.js';
import { closest } from '../../text/suggest.js';
import { flag, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson, truncate } from '../output.js';

/** `arborist import SOURCE [PATH...]`: other tools' histories into the shard (docs/import.md). */

const USAGE = `arborist import [${READER_KINDS.join('|')} [PATH...] [--follow]] [--no-sidechains] [--full] [--progress-json]`;
/**
 * SQLite's page cache for an import, KiB: half the default. An import writes each page about once and reads back
 * little (a few index pages for its lookups), so a larger cache mostly holds pages already written: 64 MiB was
 * 35-45 MB more peak RSS for the same CPU (docs/benchmarks.md, "The import's page cache").
 */
const IMPORT_CACHE_KIB = 32 * 1024;
/** Problems listed on a terminal; --json lists them all. */
const SHOWN_PROBLEMS = 40;

function problemLine(p: ImportProblem): string {
  return `${oneLine(p.file)}:${p.line}: ${oneLine(p.reason)}`;
}

/** 12.3 MB, 840 KB: progress wants a glance, not bytes. */
function size(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.round(bytes / 1e3)} KB`;
}

/**
 * `--progress-json`: one JSON line on stderr at most every 100 ms and at the end of each source
 * ({"source","files_done","files","bytes_done","bytes","turns"}): the browser's first-start import reads them.
 */
function progressLines(source: string): (p: Progress) => void {
  // The first line always goes out (performance.now() may still be under 100 ms in a fast start).
  let last = Number.NEGATIVE_INFINITY;
  return (p) => {
    const now = performance.now();
    if (p.file !== '' && now - last < 100) return;
    last = now;
    const line = {
      source,
      files_done: p.filesDone,
      files: p.filesTotal,
      bytes_done: p.bytesDone,
      bytes: p.bytesTotal,
      turns: p.turns,
    };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  };
}

/** One line that rewrites itself on stderr (a terminal only): the source, files, bytes, turns, rate. */
function progressBar(ctx: Context, source = ''): ((p: Progress) => void) | undefined {
  if (ctx.out.json || process.stderr.isTTY !== true) return undefined;
  let last = 0;
  return (p) => {
    const now = performance.now();
    if (p.file !== '' && now - last < 100) return;
    last = now;
    const width = Math.max(40, (process.stderr.columns ?? 80) - 1);
    const rate = p.elapsedMs > 0 ? Math.round((p.turns * 1000) / p.elapsedMs) : 0;
    const bar = 20;
    const filled = p.bytesTotal === 0 ? bar : Math.round((bar * p.bytesDone) / p.bytesTotal);
    const head = `${source === '' ? '' : `${source} `}[${'#'.repeat(filled)}${'.'.repeat(bar - filled)}] ${p.filesDone}/${p.filesTotal} files, ${size(p.bytesDone)}/${size(p.bytesTotal)}, ${p.turns.toLocaleString('en-US')} turns, ${rate.toLocaleString('en-US')}/s `;
    const name = p.file === '' ? '' : truncate(oneLine(p.file), Math.max(0, width - head.length));
    // Our own bytes only: \r and the erase-line sequence; the file name is cleaned above.
    process.stderr.write(`\r\x1b[2K${head}${name}`);
    if (p.file === '') process.stderr.write('\r\x1b[2K');
  };
}

function printSummary(ctx: Context, s: ImportSummary, source = ''): void {
  const c = ctx.out.color;
  const n = (x: number) => x.toLocaleString('en-US');
  // "1 file", not "1 files": the noun agrees with its number.
  const of = (x: number, one: string, many: string) => `${n(x)} ${x === 1 ? one : many}`;
  // The turns already there right after the turns added: after the files' count they read as files.
  const parts = [
    `imported ${c.bold(n(s.turns_added))} ${s.turns_added === 1 ? 'turn' : 'turns'}`,
    `${n(s.turns_skipped)} already there`,
    of(s.sessions, 'new session', 'new sessions'),
    of(s.files, 'file', 'files'),
  ];
  if (s.files_unchanged > 0)
    parts.push(`${of(s.files_unchanged, 'file', 'files')} unchanged, not read again`);
  if (s.turns_waiting > 0) parts.push(`${n(s.turns_waiting)} unfinished, waiting`);
  if (s.turns_refused > 0) parts.push(`${n(s.turns_refused)} refused`);
  if (s.archived > 0) parts.push(`${of(s.archived, 'session', 'sessions')} to the archive tier`);
  if (s.restored > 0)
    parts.push(`${n(s.restored)} brought back from it (an entry's usage family names them)`);
  if (s.entries > 0) parts.push(of(s.entries, 'entry', 'entries'));
  ctx.out.out(`${source === '' ? '' : `${source}: `}${parts.join(', ')}\n`);
  if (s.problems.length === 0) return;
  ctx.out.err(`${c.yellow(`${of(s.problems.length, 'record', 'records')} skipped or repaired:`)}\n`);
  for (const p of s.problems.slice(0, SHOWN_PROBLEMS)) ctx.out.err(`  ${problemLine(p)}\n`);
  if (s.problems.length > SHOWN_PROBLEMS)
    ctx.out.err(`  … ${n(s.problems.length - SHOWN_PROBLEMS)} more (--json lists them all)\n`);
}

/** The sources, one line each, for `import --help`: from the registry, as the README's table is. */
function sourcesHelp(): string {
  const width = Math.max(...SOURCE_KINDS.map((k) => k.length));
  const name = Math.max(...SOURCE_KINDS.map((k) => SOURCES[k].name.length));
  const lines = SOURCE_KINDS.map(
    (k) => `  ${k.padEnd(width)}  ${SOURCES[k].name.padEnd(name)}  ${SOURCES[k].where.replace(/`/g, '')}`,
  );
  return `sources (without PATH each reads where its tool keeps its history):\n${lines.join('\n')}\n`;
}

export const importCmd: Command = {
  name: 'import',
  usage: USAGE,
  summary: `import every history found on this machine, or one source's (${READER_KINDS.join(', ')}); --follow keeps importing`,
  details: sourcesHelp,
  options: {
    follow: { type: 'boolean' },
    'no-sidechains': { type: 'boolean' },
    // Every file read, whatever its fingerprint says (docs/import.md, "Files that did not change").
    full: { type: 'boolean' },
    'progress-json': { type: 'boolean' },
  },
  async run(p, ctx) {
    const [kind, ...paths] = p.positionals;
    if (kind === undefined) {
      if (flag(p, 'follow')) throw usageError(`${USAGE} (--follow follows one source)`);
      return importEverything(ctx, !flag(p, 'no-sidechains'), flag(p, 'full'), flag(p, 'progress-json'));
    }
    const reader = readerFor(kind, { sidechains: !flag(p, 'no-sidechains') });
    if (reader === undefined) {
      const sources = READER_KINDS.join(', ');
      // A path given without its source (`arborist import ~/.claude/projects`) is the likely slip: say what is missing.
      if (kind.includes('/') || existsSync(kind))
        throw new ArboristError(
          'usage',
          `unknown source '${oneLine(kind)}': give the source before the path (arborist import claude ${oneLine(kind)}); sources: ${sources}`,
        );
      const near = closest(kind, READER_KINDS);
      const hint = near === undefined ? '' : `did you mean ${near}? `;
      throw new ArboristError('usage', `unknown source '${oneLine(kind)}' (${hint}${sources})`);
    }
    // A source with no place of its own (an export, aider's per-project files): nothing to look for, say what to give.
    if (paths.length === 0 && !SOURCES[reader.kind].findable)
      throw usageError(`arborist import ${reader.kind} PATH... (${SOURCES[reader.kind].where})`);
    // A default location that is not there adds nothing (docs/import.md); none of them there is nothing to import.
    const defaults = reader.defaultPaths(ctx.env);
    const roots = paths.length > 0 ? paths : defaults.filter((d) => existsSync(d));
    if (roots.length === 0)
      throw new ArboristError('not_found', `no ${kind} history at ${defaults.join(', ')} (give a PATH)`);
    // A PATH that is not there stops here, before the shard is opened (a new one would be left behind, empty) and
    // before --follow says it follows it.
    for (const path of paths)
      if (!existsSync(path)) throw new ArboristError('not_found', `${path}: no such file or folder`);
    const shard = ctx.writable(IMPORT_CACHE_KIB);
    if (!flag(p, 'follow')) {
      let summary: ImportSummary;
      try {
        summary = runImport(shard, reader, roots, {
          onProgress: flag(p, 'progress-json') ? progressLines(SOURCES[reader.kind].name) : progressBar(ctx),
          full: flag(p, 'full'),
        });
      } catch (err) {
        if (err instanceof ArboristError && err.kind === 'not_found' && paths.length === 0)
          throw new ArboristError('not_found', `no ${kind} history at ${roots.join(', ')} (give a PATH)`);
        throw err;
      }
      // PATHs named that hold nothing this source reads (a wrong folder): told as a default place with nothing is,
      // not "imported 0 turns ... 0 files" and exit 0.
      if (paths.length > 0 && summary.files === 0 && summary.errors === 0)
        throw new ArboristError(
          'not_found',
          `no ${SOURCES[reader.kind].name} history in ${paths.join(', ')}`,
        );
      if (ctx.out.json) printJson(ctx.out, summary);
      else printSummary(ctx, summary);
      return summary.errors > 0 ? 1 : 0;
    }
    // --follow: until Ctrl-C or SIGTERM; new turns and new problems are said as they come.
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const said = new Set<string>();
    if (!ctx.out.json) ctx.out.err(`following ${roots.map(oneLine).join(', ')} (Ctrl-C stops)\n`);
    try {
      const summary = await followImport(shard, reader, roots, {
        signal: stop.signal,
        full: flag(p, 'full'),
        onLocked: (locked) => {
          if (ctx.out.json) return;
          ctx.out.err(
            locked
              ? `  ${oneLine(ctx.dbPath)} is locked by another process; waiting for it (Ctrl-C stops)\n`
              : `  ${oneLine(ctx.dbPath)} is free again; following\n`,
          );
        },
        onUnit: (u) => {
          if (u.turns_added > 0 && !ctx.out.json)
            ctx.out.out(`+${u.turns_added} turns from ${oneLine(u.file)} (${u.added[u.added.length - 1]})\n`);
          for (const pr of u.problems) {
            const line = problemLine(pr);
            if (said.has(line)) continue;
            said.add(line);
            if (!ctx.out.json) ctx.out.err(`  ${line}\n`);
          }
        },
      });
      summary.problems = summary.problems.filter(
        (pr, i, all) => all.findIndex((q) => problemLine(q) === problemLine(pr)) === i,
      );
      summary.errors = summary.problems.length;
      if (ctx.out.json) printJson(ctx.out, summary);
      else printSummary(ctx, summary);
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/**
 * `arborist import` with no kind: every history found on this machine (what the browser's first start offers), one
 * source after another, each with its progress and its summary; `--json` gives one summary a source and the total.
 */
async function importEverything(
  ctx: Context,
  sidechains: boolean,
  full: boolean,
  progressJson: boolean,
): Promise<number> {
  const found = findHistories(ctx.env);
  const kinds = [...new Set(found.map((h) => h.kind))];
  const shard = ctx.writable(IMPORT_CACHE_KIB);
  const total = emptyImportSummary();
  const sources: (ImportSummary & { kind: string; name: string; paths: string[] })[] = [];
  for (const kind of kinds) {
    const reader = readerFor(kind, { sidechains })!;
    const name = SOURCES[reader.kind].name;
    const paths = found.filter((h) => h.kind === kind).map((h) => h.path);
    const s = runImport(shard, reader, paths, {
      onProgress: progressJson ? progressLines(name) : progressBar(ctx, name),
      full,
    });
    sources.push({ kind, name, paths, ...s });
    for (const k of Object.keys(total) as (keyof ImportSummary)[])
      if (k === 'problems') total.problems.push(...s.problems);
      else total[k] += s[k];
    if (!ctx.out.json) printSummary(ctx, s, name);
  }
  if (ctx.out.json) printJson(ctx.out, { sources, total });
  else if (kinds.length === 0)
    ctx.out.out(
      'no history of a known agent on this machine (arborist import KIND PATH reads one from elsewhere)\n',
    );
  return total.errors > 0 ? 1 : 0;
}
