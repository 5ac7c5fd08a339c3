// Bundles the shipped program into dist/bundle/: one file for the CLI and TUI, one per worker thread. Why: Node 20
// loads ES modules one file at a time, and after the code was split into ~150 small modules start-up cost ~50 ms
// more (TUI first screen +45-60 ms, `--help` +50 ms); one file loads in a fraction of that. `tsc` still type-checks
// and emits dist/src for the tests and benchmarks; this only repackages the same sources. Packages stay external
// (node_modules is resolved at run time as before: better-sqlite3 is native). Workers are found beside the bundle
// by name (new URL('./x-worker.js', import.meta.url)), so each keeps its file name here.
import { build } from 'esbuild';

await build({
  entryPoints: {
    main: 'src/cli/main.ts',
    // `arborist status` alone (bin/arborist picks it): a status line runs every few seconds, so it loads only itself.
    status: 'src/cli/status-main.ts',
    // `arborist` with no command (bin/arborist picks it): the browser without the other commands and their packages.
    tui: 'src/cli/tui-main.ts',
    'chain-check-worker': 'src/ui/runtime/chain-check-worker.ts',
    'find-worker': 'src/ui/runtime/find-worker.ts',
    'check-worker': 'src/store/audit/check-worker.ts',
  },
  outdir: 'dist/bundle',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: false,
  logLevel: 'warning',
  metafile: process.env.BUNDLE_META !== undefined,
}).then((r) => {
  if (r.metafile) process.stdout.write(`${JSON.stringify(r.metafile)}\n`);
});
