// The import graph's rules, checked by `npm run lint` (dependency-cruiser; docs/dependencies.md).
// The layers of src/, each allowed to import only the layers below it:
//
//   cli ──> ui ──> keymap
//    ├──> mcp ──────────> store
//    │       │
//    ├───────┼──> agent ──> import ──> store
//    │       │      └─────> ask ─────> store
//    ├───────┴──> ask ──> store
//    └──> export ───────> store
//
//   text: anything may import it; it imports nothing of the project.
//   config: the user's paths, config.json and keys.json, read in one place; the layers above store may use it.
//   import: reads other tools' histories; imports store and text; cli uses it.
//   export: reads the store (the Shard facade), renders with text; only the CLI uses it.
//   mcp: the shard as a read-only MCP server for agents (`arborist mcp`): the CLI's read commands through the same
//        store calls, over the MCP SDK; only the CLI starts it.
//   sync: `arborist sync` over git: the mirror beside the shard, push, pull and its checks, through import's writer;
//         only the CLI uses it.
//   keep: the keeper (`arborist keep`): follows every source's files through import, its lock, log and service;
//         only the CLI uses it (status reads its lock and state files through keep/state.ts).
//   agent: continues a Claude Code session from a turn (writes its transcript, runs it, imports what it adds);
//          the CLI and the TUI use it; it is the TUI's way into the import layer, but for one module:
//          src/import/details.ts (a turn's details read back from its source records), which ui may import.
//
// Arrows are transitive (cli may use store directly; a layer below is below). Each rule below is an allow-list,
// so a new folder under src/ is refused by all of them until it is given a place here.

/** A rule that a layer imports only itself and the layers it may use (and, `modules`, single modules named). */
const layer = (name, mayUse, comment, modules = []) => ({
  name: `${name}-imports-only-below`,
  comment,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/(${[name, ...mayUse].join('|')})/`, ...modules] },
});

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import circles in src/, bench/ or tests/: a circle means two modules are one in disguise, and its ' +
        'import order decides what is initialised first. Type-only imports count.',
      severity: 'error',
      from: { path: '^(src|bench|tests)/' },
      to: { circular: true },
    },
    layer('text', [], 'text is the leaf: width, sanitising and wrapping of strings, usable by every layer.'),
    layer('store', ['text'], 'store is the bottom layer: the shard knows nothing of who shows or asks.'),
    layer(
      'config',
      ['store', 'text'],
      "config is the one home of the user's paths, config.json and keys.json: it reads them and knows no layer above " +
        '(it takes only the error type, from the store\'s light entry).',
    ),
    layer('keymap', ['text'], 'keymap is pure data about keys; the UI reads it, never the other way round.'),
    layer('ask', ['config', 'store', 'text'], 'ask writes answers through the store; it does not know the UI or the CLI.'),
    layer(
      'ui',
      ['keymap', 'agent', 'ask', 'config', 'store', 'text'],
      'ui runs the TUI on top of keymap, agent, ask and store; the CLI starts it, so ui must not import cli. One ' +
        "module of import is open to it: src/import/details.ts, the readers' details of a turn (thinking, whole " +
        'calls) from its source records, which only a reader can read; ui loads it lazily (src/ui/runtime/details.ts) ' +
        'and reaches nothing else of import (agent remains the way to run and import).',
      ['^src/import/details\\.ts$'],
    ),
    layer(
      'export',
      ['store', 'text'],
      'export renders what the store holds as markdown, HTML or JSON; it knows no terminal, UI or importer.',
    ),
    layer(
      'cli',
      ['ui', 'keymap', 'agent', 'ask', 'import', 'export', 'mcp', 'keep', 'sync', 'config', 'store', 'text'],
      'cli is the top: it parses arguments and calls the layers below; none of them may import it.',
    ),
    layer(
      'mcp',
      ['store', 'text'],
      'mcp serves the shard read-only to agents over the MCP SDK; it knows no terminal, UI, importer or CLI (which starts it).',
    ),
    layer(
      'keep',
      ['import', 'config', 'store', 'text'],
      'keep follows histories through the import layer and writes only through it; it knows no terminal (the CLI prints).',
    ),
    layer(
      'sync',
      ['import', 'store', 'text'],
      'sync moves histories between hosts over git (the git command): it imports through the import writer and reads ' +
        'the store; it knows no terminal (the CLI prints) and no UI (the TUI runs the CLI as a child).',
    ),
    layer('import', ['config', 'store', 'text'], 'import reads other tools\' histories into the store through its bulk API, nothing else.'),
    layer(
      'agent',
      ['import', 'ask', 'config', 'store', 'text'],
      'agent writes a Claude Code transcript from the store, runs the agent and imports what it adds (through import); ' +
        'it reads config.json through ask; it knows no terminal UI and no CLI.',
    ),
    {
      name: 'src-has-only-known-layers',
      comment: 'Every folder of src/ is one of the layers above; give a new one a rule here before using it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|ui|keymap|agent|ask|config|store|text|import|export|mcp|keep|sync)/' },
      to: {},
    },
    {
      name: 'import-readers-apart',
      comment:
        "A reader's folder under src/import/ never imports another reader's folder: what two readers share is a " +
        'module of src/import/ itself (jsonl.ts, walk.ts, times.ts, zstd.ts, sqlite-open.ts...). pi-format/ is the ' +
        'shared format of pi and OpenClaw, so any reader may use it.',
      severity: 'error',
      from: { path: '^src/import/([^/]+)/' },
      to: { path: '^src/import/[^/]+/', pathNot: ['^src/import/$1/', '^src/import/pi-format/'] },
    },
    {
      name: 'store-only-through-its-entries',
      comment:
        'The store shows one face: src/ outside the store imports only src/store/index.ts (and light.ts, the ' +
        "light entry of the status bundle); tests and benchmarks may also import testing.ts, the store's internals " +
        'they pin. Nothing reaches past them into a part of the store.',
      severity: 'error',
      from: { path: '^(src|tests|bench)/', pathNot: '^src/store/' },
      to: { path: '^src/store/', pathNot: '^src/store/(index|light|testing)\\.ts$' },
    },
    {
      name: 'product-not-on-store-testing',
      comment: "src/store/testing.ts hands out the raw connection and the store's internals: tests and benchmarks only.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/testing\\.ts$' },
      to: { path: '^src/store/testing\\.ts$' },
    },
    {
      name: 'src-not-on-tests-or-bench',
      comment: 'The shipped code never imports test or benchmark code.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tests|bench)/' },
    },
  ],
  options: {
    // Type-only imports couple modules too (and would become real ones with one edit), so they count.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
