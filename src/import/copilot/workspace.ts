/**
 * A session's title from the `workspace.yaml` beside its `events.jsonl`. Copilot CLI keeps the session's name there
 * (`name`, set by `--name` or `/rename`, or generated from the first prompt) and writes it with the `yaml` package's
 * `stringify(workspace, { lineWidth: 0 })`: flat `key: value` lines, a string never folded over lines (docs/import.md,
 * GitHub Copilot CLI). Only the two top-level keys that hold the title are read; the title event itself
 * (`session.title_changed`) is never written to the log. Nothing here throws: no file, no title.
 */
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { readRegular } from '../files.js';
import type { ImportProblem } from '../model.js';

/** workspace.yaml holds a dozen short fields; anything bigger is not one. */
const MAX_BYTES = 1024 * 1024;

/** A YAML scalar written on one line: plain, 'single-quoted' or "double-quoted" (JSON's escapes are YAML's too). */
function scalar(v: string): string | undefined {
  const s = v.trim();
  if (s === '') return undefined;
  if (s.startsWith('"')) {
    try {
      const out = JSON.parse(s) as unknown;
      return typeof out === 'string' ? out : undefined;
    } catch {
      return undefined; // a YAML-only escape (\e, \x..): not worth guessing at
    }
  }
  if (s.startsWith("'"))
    return s.length >= 2 && s.endsWith("'") ? s.slice(1, -1).replaceAll("''", "'") : undefined;
  if (s.startsWith('|') || s.startsWith('>')) return undefined;
  return s;
}

/** The value of a top-level `key:` line, when it is a one-line scalar. */
function topLevel(lines: string[], key: string): string | undefined {
  for (const line of lines) {
    if (line.startsWith(`${key}:`)) return scalar(line.slice(key.length + 1));
  }
  return undefined;
}

/** The session title recorded in `<dir>/workspace.yaml` (`name`, else `summary`), when there is one. */
export function workspaceTitle(dir: string, problems: ImportProblem[]): string | undefined {
  const file = join(dir, 'workspace.yaml');
  let buf: Buffer;
  try {
    buf = readRegular(file, MAX_BYTES).buf;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT')
      problems.push({ file, line: 0, reason: `cannot read it (${code ?? (e as Error).message}); no title` });
    return undefined;
  }
  if (!isUtf8(buf)) {
    problems.push({ file, line: 0, reason: 'invalid UTF-8; no title' });
    return undefined;
  }
  const lines = buf.toString('utf8').split(/\r?\n/);
  const title = topLevel(lines, 'name') ?? topLevel(lines, 'summary');
  return title === undefined || title.trim() === '' ? undefined : title;
}
