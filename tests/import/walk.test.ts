import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportProblem } from '../../src/import/model.js';
import { isFileEntry, listFolder, oldestFirst, unlessFolder, walkFolders } from '../../src/import/walk.js';
import { tempDir } from '../support/tmp.js';

/** The folders walkFolders lists below `root`, relative to it, sorted. */
function walked(root: string, maxDepth: number): string[] {
  const seen: string[] = [];
  walkFolders(root, maxDepth, undefined, (dir, entries) => {
    seen.push(dir.slice(root.length) || '/');
    return entries;
  });
  return seen.sort();
}

describe("discovery's shared walk (src/import/walk.ts)", () => {
  it('lists folders down to maxDepth and no deeper', () => {
    const root = tempDir();
    mkdirSync(join(root, 'a', 'b', 'c', 'd'), { recursive: true });
    expect(walked(root, 2)).toEqual(['/', '/a', '/a/b']);
    expect(walked(root, 4)).toEqual(['/', '/a', '/a/b', '/a/b/c', '/a/b/c/d']);
  });

  it('never goes through a link to a folder, so a link loop ends; a link to a file is a file', () => {
    const root = tempDir();
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'f.jsonl'), '{}\n');
    symlinkSync(root, join(root, 'a', 'loop'));
    symlinkSync(join(root, 'a', 'f.jsonl'), join(root, 'a', 'link.jsonl'));
    symlinkSync(join(root, 'gone'), join(root, 'a', 'dangling.jsonl'));
    expect(walked(root, 100)).toEqual(['/', '/a']);
    const files = listFolder(join(root, 'a'), undefined)
      .filter((e) => isFileEntry(join(root, 'a'), e))
      .map((e) => e.name)
      .sort();
    expect(files).toEqual(['f.jsonl', 'link.jsonl']);
  });

  it('a folder that cannot be listed is one problem, and the walk goes on; a missing one is none', () => {
    const root = tempDir();
    const problems: ImportProblem[] = [];
    writeFileSync(join(root, 'file'), 'x');
    expect(listFolder(join(root, 'file'), problems)).toEqual([]);
    expect(listFolder(join(root, 'missing'), problems)).toEqual([]);
    expect(problems).toEqual([
      {
        file: join(root, 'file'),
        line: 0,
        reason: 'cannot read this folder (ENOTDIR); its files are not imported',
      },
    ]);
  });

  it('a path that is not a folder stands for itself, or for nothing when it is not there', () => {
    const root = tempDir();
    writeFileSync(join(root, 'f'), 'x');
    expect(unlessFolder(join(root, 'f'))).toEqual([join(root, 'f')]);
    expect(unlessFolder(join(root, 'missing'))).toEqual([]);
    expect(unlessFolder(root)).toBeUndefined();
  });

  it('orders oldest first by the stamp, the file time where there is none, then the file time, then the path', () => {
    const root = tempDir();
    const at = (name: string, sec: number) => {
      const f = join(root, name);
      writeFileSync(f, 'x');
      utimesSync(f, sec, sec);
      return f;
    };
    const stamps: Record<string, number> = { a: 5000, b: 5000, c: Number.NaN, d: 1000 };
    const files = [at('a', 300), at('b', 200), at('c', 3), at('d', 900)];
    const gone = join(root, 'gone');
    const order = oldestFirst([gone, ...files], (f) => stamps[f.slice(root.length + 1)] ?? Number.NaN);
    // c has no stamp: its file time (3000 ms) puts it between d (1000) and a, b (5000, the older file first)
    expect(order.map((f) => f.slice(root.length + 1))).toEqual(['d', 'c', 'b', 'a', 'gone']);
  });
});
