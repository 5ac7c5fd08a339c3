// Bundles the shipped program into dist/bundle/: one file for the CLI and TUI, one per worker thread. Why: Node 20
// loads ES modules one file at a time, and after the code was split into ~150 small modules start-up cost ~50 ms
// more (TUI first screen +45-60 ms, `--help` +50 ms); one file loads in a fraction of that. `tsc` still type-checks
// and emits dist/src for the tests and benchmarks; this only repackages the same sources. Packages stay external
// (node_modules is resolved at run time as before: better-sqlite3 is native). Workers are found beside the bundle
// by name (new URL('./x-worker.js', import.meta.url)), so each keeps its file name here.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry a content hash: the old ones would pile up beside the new.
rmSync('dist/bundle/chunks', { recursive: true, force: true });

const common = {
  outdir: 'dist/bundle',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: false,
  logLevel: 'warning',
  metafile: process.env.BUNDLE_META !== undefined,
};

const results = await Promise.all([
  build({
    ...common,
    entryPoints: {
      main: 'src/cli/main.ts',
      // `arborist status` alone (bin/arborist picks it): a status line runs every few seconds, so it loads only itself.
      status: 'src/cli/status-main.ts',
      'chain-check-worker': 'src/ui/runtime/chain-check-worker.ts',
      'find-worker': 'src/ui/runtime/find-worker.ts',
      'check-worker': 'src/store/audit/check-worker.ts',
      'verify-worker': 'src/store/verify-worker.ts',
      'fts-build-worker': 'src/store/find/fts-build-worker.ts',
    },
  }),
  // `arborist` with no command (bin/arborist picks it): the browser without the other commands and their packages.
  // Built alone and split: what it imports dynamically (the importers' readers and writer, behind the first start's
  // offer and `r`'s follow of written transcripts; the answer providers) goes into chunks of its own, so the first
  // screen does not parse them. With one entry, nothing it imports statically is split off: still one file to load.
  build({
    ...common,
    entryPoints: { tui: 'src/cli/tui-main.ts' },
    splitting: true,
    chunkNames: 'chunks/tui-[name]-[hash]',
  }),
]);
for (const r of results) if (r.metafile) process.stdout.write(`${JSON.stringify(r.metafile)}\n`);
