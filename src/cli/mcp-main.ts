import { shardPathFromFlag } from '../config/index.js';
import { parse } from './args.js';
import { mcpCmd, runMcp } from './commands/mcp.js';
import { commandHelp } from './help.js';
import { runEntry } from './report.js';

/**
 * `arborist mcp` on its own: bin/arborist starts it for `mcp` (through mcp-launch.ts and V8's code cache). An agent
 * starts the server at the beginning of each of its sessions and waits for it, so this loads only the store, the
 * server and the SDK (inlined: one file, not some 240 modules), never the TUI or the other commands. Same parsing
 * and errors as main.ts, which lists and runs the command too.
 */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> | number {
  const p = parse(argv, mcpCmd.options, 'mcp');
  if (p.values.help) {
    process.stdout.write(commandHelp(mcpCmd));
    return 0;
  }
  return runMcp(p, shardPathFromFlag(p.values.db, env));
}

const argv = process.argv.slice(3); // node, bin/arborist, 'mcp', ...
runEntry('mcp', argv, () => run(argv, process.env));
