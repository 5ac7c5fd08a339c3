import { exportSource, exportText, FORMATS, isFormat, writeFileAtomic } from '../../export/index.js';
import { ArboristError, shardFiles } from '../../store/index.js';
import { exactPositionals, flag, str } from '../args.js';
import type { Command } from '../command.js';

/** `arborist export`: a path, a subtree or a session as markdown, HTML or JSON (docs/export.md). */
export const exportCmd: Command = {
  name: 'export',
  usage: 'arborist export BATES|SID [--format md|json|html|source] [--subtree] [--out FILE [--force]]',
  summary: 'a path, a subtree or a session as markdown, one HTML file, JSON, or its source records',
  options: {
    format: { type: 'string' },
    subtree: { type: 'boolean' },
    out: { type: 'string' },
    force: { type: 'boolean' },
  },
  run(p, ctx) {
    const [id] = exactPositionals(p, 1, this.usage);
    // --json (taken by every command) asks for the JSON document; with another --format it is a contradiction.
    const given = str(p, 'format');
    if (given !== undefined && !isFormat(given) && given !== 'source') {
      throw new ArboristError('usage', `unknown format '${given}' (${[...FORMATS, 'source'].join(', ')})`);
    }
    if (ctx.out.json && given !== undefined && given !== 'json') {
      throw new ArboristError('usage', `--json asks for --format json, not --format ${given}`);
    }
    const format: string = given ?? (ctx.out.json ? 'json' : 'md');
    const out = str(p, 'out');
    if (out === '') throw new ArboristError('usage', '--out needs a file name (it was given an empty one)');
    if (flag(p, 'force') && out === undefined)
      throw new ArboristError('usage', '--force goes with --out FILE');
    // The shard being read (and its -wal, -shm), under any name: `--out sessions.db --force` must not replace it.
    const write = (file: string, bytes: string | Buffer) =>
      writeFileAtomic(file, bytes, { force: flag(p, 'force'), protect: shardFiles(ctx.dbPath) });
    if (format === 'source') {
      const bytes = exportSource(ctx.readable(), { id, subtree: flag(p, 'subtree') });
      if (out !== undefined) write(out, bytes);
      // Another tool's raw lines may hold any escape sequence: they go to a file or a pipe, never a terminal.
      else if (process.stdout.isTTY)
        throw new ArboristError('usage', '--format source writes raw records: give --out FILE or a pipe');
      else process.stdout.write(bytes);
      return 0;
    }
    if (!isFormat(format)) throw new ArboristError('usage', `unknown format '${format}'`);
    const text = exportText(ctx.readable(), { id, format, subtree: flag(p, 'subtree') });
    if (out === undefined) {
      // The document is safe to print by construction (controls stripped or escaped; tests/export checks it); it
      // still goes through the CLI's output filter, the last line of defence for anything printed.
      ctx.out.out(text);
      return 0;
    }
    write(out, text);
    return 0;
  },
};
