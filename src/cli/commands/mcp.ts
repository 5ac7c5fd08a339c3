import { serveStdio } from '../../mcp/server.js';
import { exactPositionals, type Parsed } from '../args.js';
import type { Command } from '../command.js';

const USAGE = 'arborist mcp [--db PATH]';

/** Serves until the client closes stdin; the shard is found as every command finds it (--db, $ARBORIST_DB...). */
export async function runMcp(p: Parsed, dbPath: string): Promise<number> {
  exactPositionals(p, 0, USAGE);
  // Run by hand at a terminal it waited on a blank screen, as if hung: say what it is (stderr; stdout is the
  // protocol's). An agent starts it with pipes and never sees this.
  if (process.stdin.isTTY)
    process.stderr.write(
      'arborist mcp: an MCP server on stdin/stdout, for an agent to start (set-up: docs/mcp.md); waiting for JSON-RPC lines, Ctrl-D ends\n',
    );
  await serveStdio(dbPath);
  return 0;
}

/**
 * `arborist mcp`: the shard as an MCP server on stdin/stdout, for the agents themselves (docs/mcp.md). Read-only.
 * bin/arborist runs it from its own bundle (mcp-main.ts), which loads none of the other commands.
 */
export const mcpCmd: Command = {
  name: 'mcp',
  usage: USAGE,
  summary: 'serve the shard to AI agents: a read-only MCP server over stdio (docs/mcp.md)',
  details: () =>
    'Tools: find, show, path, tree, list, check. Resource: arborist://turn/BATES.\n' +
    'Set-up for Claude Code, Codex, Gemini CLI and OpenCode: docs/mcp.md.\n',
  options: {},
  run: (p, ctx) => runMcp(p, ctx.dbPath),
};
