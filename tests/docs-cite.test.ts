import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Docs and comments that cite our code stay true: every path of this repository they name (src/..., tests/...,
 * bench/..., scripts/..., docs/...) exists. A path of another project is written after its repository's name
 * (`openclaw/openclaw src/config/paths.ts`, simonw/llm `docs/logging.md`) and is not ours to check.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PATH = /(?<![\w/.-])((?:src|tests|bench|scripts|docs)\/[\w./-]*\w)/g;
const OTHER_REPO = /[\w.-]+\/[\w.-]+\s*`?$/;

function files(dir: string, ext: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length));
}

describe('docs and comments cite code that exists', () => {
  const cited = [...files('docs', '.md'), 'README.md', 'CONTRIBUTING.md', ...files('src', '.ts')];

  it('names no missing file of this repository', () => {
    const missing: string[] = [];
    for (const f of cited) {
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const m of line.matchAll(PATH)) {
            if (OTHER_REPO.test(line.slice(0, m.index))) continue;
            const p = m[1].replace(/\.$/, '');
            if (!existsSync(join(ROOT, p)) && !existsSync(join(ROOT, p.replace(/\.js$/, '.ts'))))
              missing.push(`${f}:${i + 1}: ${p}`);
          }
        });
    }
    expect(missing).toEqual([]);
  });

  it('would name one (the check itself is not empty)', () => {
    expect(cited.length).toBeGreaterThan(100);
    const line = 'the engine is src/store/no-such-file.ts';
    const hits = [...line.matchAll(PATH)].map((m) => m[1]);
    expect(hits).toEqual(['src/store/no-such-file.ts']);
    expect(existsSync(join(ROOT, hits[0]))).toBe(false);
  });
});
