// Bundles the shipped program into dist/bundle/: one file for the CLI and TUI, one per worker thread. Why: Node 20
// loads ES modules one file at a time, and after the code was split into ~150 small modules start-up cost ~50 ms
// more (TUI first screen +45-60 ms, `--help` +50 ms); one file loads in a fraction of that. `tsc` still type-checks
// and emits dist/src for the tests and benchmarks; this only repackages the same sources. Packages stay external
// (node_modules is resolved at run time as before: better-sqlite3 is native). Workers are found beside the bundle
// by name (new URL('./x-worker.js', import.meta.url)), so each keeps its file name here.
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

// Earlier builds split the browser into chunks here; none are made now.
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

/** Replaces `find` in `text` exactly once, or fails the build: each edit below relies on a line it knows. */
function replaceOnce(text, find, by, file) {
  const at = text.indexOf(find);
  if (at < 0 || text.indexOf(find, at + find.length) >= 0) throw new Error(`bundle: expected one ${find} in ${file}`);
  return text.slice(0, at) + by + text.slice(at + find.length);
}

/**
 * Inlines the parts of neo-blessed the browser loads (its Screen and what that requires: 16 files, keys.js and
 * gpmclient.js among them, required later) into the browser's bundle, so that they are compiled from the code cache
 * too: required from node_modules they cost ~40 ms of the first screen, ~15 ms inlined and cached. Three edits make
 * that possible, each checked:
 * - src/ui/term/terminal.ts requires them through createRequire (it is an ES module); without that line its
 *   `require` is the CommonJS one the bundler follows.
 * - unicode.js's charWidth requires neo-blessed's index (all 34 widgets, images and a terminal emulator among them)
 *   for a tab's width; terminal.ts replaces charWidth, so that require is left to run time, never inlined.
 * - tput.js finds its terminfo files from __dirname, which in a bundle would be dist/bundle: it is given
 *   neo-blessed's own lib folder instead.
 */
const neoBlessedParts = {
  name: 'neo-blessed-parts',
  setup(b) {
    b.onLoad({ filter: /src[\\/]ui[\\/]term[\\/]terminal\.ts$/ }, async (args) => ({
      loader: 'ts',
      contents: replaceOnce(
        await readFile(args.path, 'utf8'),
        'const require = createRequire(import.meta.url);',
        '',
        args.path,
      ),
    }));
    b.onResolve({ filter: /^\.\.\/?$/ }, (args) =>
      /neo-blessed[\\/]lib[\\/]unicode\.js$/.test(args.importer) ? { path: 'neo-blessed', external: true } : undefined,
    );
    b.onLoad({ filter: /neo-blessed[\\/]lib[\\/]tput\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('__dirname')) throw new Error(`bundle: expected __dirname in ${args.path}`);
      const lib = "require('node:path').join(require('node:path').dirname(require.resolve('neo-blessed/package.json')), 'lib')";
      return { loader: 'js', contents: `var __neo_blessed_lib = ${lib};\n${text.replaceAll('__dirname', '__neo_blessed_lib')}` };
    });
  },
};

/**
 * The markdown parser and the highlighter (src/ui/features/transcript/engines.ts) are required on first use, through
 * createRequire. Dropping that line leaves `require` to the bundler. In the commands' bundle (`inline`) it inlines
 * both packages, evaluated only when first required: a command that never renders an answer pays nothing but the
 * bytes, and lowlight (an ES module) never meets Node 20's own require. The browser's bundle (`split`) requires them
 * from md-engines.cjs beside it instead: its first screen reads and checks every byte of its bundle (the code cache
 * is keyed by them), and the engines are ~600 KB that the first screen does not need (+10-15% on it when inlined).
 */
function lazyEngines(mode) {
  return {
    name: 'lazy-engines',
    setup(b) {
      b.onLoad({ filter: /src[\\/]ui[\\/]features[\\/]transcript[\\/]engines\.ts$/ }, async (args) => {
        let text = replaceOnce(await readFile(args.path, 'utf8'), 'const require = createRequire(import.meta.url);', '', args.path);
        if (mode === 'split') {
          text = replaceOnce(text, "require('markdown-it')", "require('./md-engines.cjs').markdownIt", args.path);
          text = replaceOnce(text, "require('lowlight')", "require('./md-engines.cjs')", args.path);
        } else {
          // lowlight required whole would bring its 190 grammars; this module of ours imports only the common ones.
          text = replaceOnce(text, "require('lowlight')", "require('./lowlight-common.js')", args.path);
        }
        return { loader: 'ts', contents: text };
      });
      // Found beside the browser's bundle at run time (code-cache.ts gives it a require from its own file).
      b.onResolve({ filter: /^\.\/md-engines\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/** Packages inlined into the CLI's bundle (with what they import) rather than left external: the engines above. */
const INLINED = new Set(['markdown-it', 'lowlight']);
const pkg = JSON.parse(await readFile('package.json', 'utf8'));
const externalPackages = Object.keys(pkg.dependencies).filter((n) => !INLINED.has(n));

const results = await Promise.all([
  build({
    ...common,
    entryPoints: {
      main: 'src/cli/main.ts',
      // `arborist status` alone (bin/arborist picks it): a status line runs every few seconds, so it loads only itself.
      status: 'src/cli/status-main.ts',
      'chain-check-worker': 'src/ui/runtime/chain-check-worker.ts',
      'find-worker': 'src/ui/runtime/find-worker.ts',
      'check-worker': 'src/store/chain/check-worker.ts',
      'verify-worker': 'src/store/verify/verify-worker.ts',
      'fts-build-worker': 'src/store/find/fts-build-worker.ts',
      'chunk-worker': 'src/store/write/chunk-worker.ts',
      // The browser's launcher: runs tui-body.cjs (below) with its code cache.
      tui: 'src/cli/tui-launch.ts',
      // The MCP server's launcher: runs mcp-body.cjs (below) with its code cache.
      mcp: 'src/cli/mcp-launch.ts',
    },
    packages: undefined,
    external: externalPackages,
    plugins: [lazyEngines('inline')],
  }),
  // `arborist` with no command (bin/arborist picks it): the browser without the other commands and their packages,
  // as one CommonJS file that tui.js (src/cli/tui-launch.ts) runs through V8's code cache (src/cli/code-cache.ts):
  // from the second start on, its first screen compiles almost nothing. A script, not a module, because Node 20
  // caches compiled code only for vm.Script. What it imports dynamically (the importers, the answer providers) is
  // in the same file but run only when first imported; with a code cache, code never run costs next to nothing.
  // Packages are inlined, so that they are in the cache too (canonicalize is ES-module only, so a CommonJS require
  // could not load it anyway), except better-sqlite3, which is native. neo-blessed is inlined by neoBlessedParts.
  build({
    ...common,
    entryPoints: { 'tui-body': 'src/cli/tui-main.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    packages: undefined,
    // neo-blessed's package.json is only looked up (require.resolve), to find its folder on disk.
    external: ['better-sqlite3', 'neo-blessed/package.json'],
    plugins: [neoBlessedParts, lazyEngines('split')],
    // Worker files and createRequire are found from import.meta.url: here, the bundle's own file.
    define: { 'import.meta.url': '__bundle_url' },
    // "use strict" first, before the banner's line: the sources are ES modules, always strict, and a directive
    // after another statement is only a string (the bundle would run sloppy).
    banner: { js: '"use strict";\nvar __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  }),
  // `arborist mcp` alone (bin/arborist picks it): an agent starts it and waits. As the browser's: a launcher (mcp.js)
  // that runs the body through V8's code cache, the body one CommonJS script with the SDK and zod inlined (as ~240
  // ES modules loaded one by one from node_modules they cost ~300 ms of its start; docs/mcp.md, "Start-up").
  build({
    ...common,
    entryPoints: { 'mcp-body': 'src/cli/mcp-main.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    packages: undefined,
    external: ['better-sqlite3'],
    define: { 'import.meta.url': '__bundle_url' },
    banner: { js: '"use strict";\nvar __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  }),
  // The browser's markdown parser and highlighter, required from tui-body.cjs on first use (lazyEngines above).
  build({
    ...common,
    entryPoints: { 'md-engines': 'src/ui/features/transcript/engines-entry.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    packages: undefined,
  }),
]);
for (const r of results) if (r.metafile) process.stdout.write(`${JSON.stringify(r.metafile)}\n`);
