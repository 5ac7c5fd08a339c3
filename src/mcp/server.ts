import { statSync } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { asArboristError, Shard } from '../store/index.js';
import { oneLine } from '../text/sanitize.js';
import { truncate } from '../text/width.js';
import { checkedLines, MAX_LINE_BYTES } from './stdio.js';
import { check, find, list, MAX_QUERY_CHARS, path, show, tree, turnText } from './tools.js';

/**
 * `arborist mcp`: the shard as a Model Context Protocol server over stdio, on the official TypeScript SDK. It only
 * reads: the shard is opened read-only (no upgrade, no index flush, no checkpoint; OpenOptions.readonly), and the
 * tools are the CLI's read commands through the same store calls (tools.ts). Every failure of a call is a tool error
 * of one line (isError) and the server goes on serving; stdout carries the protocol and nothing else.
 *
 * The SDK and zod are imported when the server starts, not at the top: the whole CLI's bundle lists this command,
 * and a static import there would load them (~300 ms of modules) for every other command.
 */

export const VERSION = '0.1.0';

const INSTRUCTIONS =
  "arborist holds the user's AI conversation history (Claude Code, Codex, Gemini CLI and other agents' sessions, " +
  'every turn with a Bates id such as abcd1234-000042). Use find to search it, show to read a turn, path for the ' +
  'conversation leading to a turn, tree and list to browse sessions, check for the audit chain. Cite turns by their ' +
  'Bates id: the user opens one with `arborist show BATES`. Results are paged: pass next_cursor back, with the same ' +
  'other arguments, for more.';

/** A value as the text of a tool result: JSON, with the separators and controls JSON leaves raw escaped too. */
function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The file at a path, as (device, inode); null when there is none. */
function fileId(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * Opens the shard on first use, read-only; a shard that could not be used is opened again by the next call, and
 * so is one whose path now names another file (a backup restored, a new shard moved in) or none: an open
 * connection reads its own file to the end, so without the check the server answered from the old one for ever.
 */
class LazyShard {
  private shard: Shard | undefined;
  private id: string | null = null;
  constructor(readonly dbPath: string) {}
  get(): Shard {
    if (this.shard && fileId(this.dbPath) !== this.id) this.drop();
    if (!this.shard) {
      const id = fileId(this.dbPath);
      this.shard = Shard.open(this.dbPath, { readonly: true });
      this.id = id;
    }
    return this.shard;
  }
  drop(): void {
    try {
      this.shard?.close();
    } catch {
      // a connection to a damaged or vanished file: nothing more to do with it
    }
    this.shard = undefined;
  }
}

/** Runs one tool call: its value as JSON text, or its failure as one line with isError. */
function call(lazy: LazyShard, fn: (shard: Shard) => unknown): CallToolResult {
  try {
    return { content: [{ type: 'text', text: jsonText(fn(lazy.get())) }] };
  } catch (err) {
    const known = asArboristError(lazy.dbPath, err);
    // The shard itself failed (gone, replaced, locked, corrupt): open it afresh next time.
    if (known === undefined || known.kind === 'shard' || known.kind === 'damaged' || known.kind === 'busy')
      lazy.drop();
    const message = known?.message ?? `internal error: ${(err as Error)?.message ?? String(err)}`;
    if (known === undefined) process.stderr.write(`arborist mcp: ${oneLine(message)}\n`);
    return {
      content: [{ type: 'text', text: truncate(oneLine(message.split('\n')[0]), 400) }],
      isError: true,
    };
  }
}

/** The server with its tools and resource, not yet connected: the tests' and the CLI's one way to make it. */
export async function createServer(dbPath: string): Promise<{ server: McpServer; close: () => void }> {
  const [{ McpServer, ResourceTemplate }, { z }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('zod'),
  ]);
  const lazy = new LazyShard(dbPath);
  const server = new McpServer({ name: 'arborist', version: VERSION }, { instructions: INSTRUCTIONS });
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  const bates = z
    .string()
    .min(1, 'bates is empty: give a Bates id from find, path or tree')
    .max(200, 'bates is too long for a Bates id')
    .describe("A turn's Bates id, e.g. 'abcd1234-000042' (from find, path or tree)");
  const cursor = z
    .string()
    .max(400, 'cursor is not one this server gave')
    .optional()
    .describe('next_cursor from the previous result of the same call, for the next page (limit may change)');
  const limit = (dflt: number, max: number) =>
    z.number().int().min(1).max(max).optional().describe(`Items per page (default ${dflt}, at most ${max})`);

  server.registerTool(
    'find',
    {
      title: 'Search the conversation history',
      description:
        "Full-text search over every turn (question, answer, cited titles) of every session in the user's AI " +
        'conversation history, newest matches ranked first, typos forgiven. Each hit has its Bates id (cite it, or ' +
        'open it with show), the sid of its session (for tree), agent, project, time, question and a snippet («» around matched words). Filters narrow ' +
        'the search: agent (claude, codex, gemini, ...; a prefix is enough), project (part of the project name or ' +
        'working directory), after / before (YYYY-MM-DD or YYYY-MM), in: "question" (questions only), session (a ' +
        'session id or label). Words are matched as words: quotes and operators are searched as text.',
      inputSchema: {
        query: z
          .string()
          .max(
            MAX_QUERY_CHARS,
            `query is too long: at most ${MAX_QUERY_CHARS} characters (a few words find more)`,
          )
          .describe('Words to search for; may be empty when a filter is given'),
        agent: z
          .string()
          .max(100)
          .optional()
          .describe("Only this agent's sessions: claude, codex, gemini, arborist..."),
        project: z
          .string()
          .max(300)
          .optional()
          .describe('Only sessions whose project or working directory contains this'),
        after: z
          .string()
          .max(40)
          .optional()
          .describe('Only turns from this day on (YYYY-MM-DD or YYYY-MM, UTC)'),
        before: z
          .string()
          .max(40)
          .optional()
          .describe('Only turns before this day (YYYY-MM-DD or YYYY-MM, UTC)'),
        in: z.enum(['question']).optional().describe('"question": match the questions only'),
        session: z
          .string()
          .max(200)
          .optional()
          .describe("Only this session (its sid, e.g. 'abcd1234', or label)"),
        limit: limit(10, 50),
        cursor,
      },
      annotations: readOnly,
    },
    (args) => call(lazy, (s) => find(s, args)),
  );

  server.registerTool(
    'show',
    {
      title: 'Read one turn',
      description:
        'One turn by its Bates id: question, answer, agent, project, time, parent turn, cited titles (the first 4 KB; ' +
        'cited_total when there are more), hashes. A long ' +
        'turn comes in pages (question_range / answer_range say which characters are here); pass next_cursor, with ' +
        'the same bates, for the rest.',
      inputSchema: { bates, cursor },
      annotations: readOnly,
    },
    (args) => call(lazy, (s) => show(s, args)),
  );

  server.registerTool(
    'path',
    {
      title: 'The conversation leading to a turn',
      description:
        'The turns from the root of the conversation down to this Bates id, oldest first, across sessions (a fork ' +
        "continues its parent session's path). Each turn: Bates id, agent, time, and the start of its question and " +
        'answer; use show for a whole turn.',
      inputSchema: { bates, limit: limit(50, 200), cursor },
      annotations: readOnly,
    },
    (args) => call(lazy, (s) => path(s, args)),
  );

  server.registerTool(
    'tree',
    {
      title: "A session's turns as a tree",
      description:
        "A session's title, agent and project, and its turns depth-first, each with its depth inside the session " +
        '(0 = top), Bates id, time, question ' +
        'and number of children (2 or more: the conversation branched there). other_session marks a child that ' +
        'forked into another session.',
      inputSchema: {
        session: z
          .string()
          .min(1, 'session is empty: give a sid from list')
          .max(200)
          .describe(
            "A session's sid (8 characters, the part of a Bates id before the dash: sid in list and find) or its label",
          ),
        limit: limit(100, 500),
        cursor,
      },
      annotations: readOnly,
    },
    (args) => call(lazy, (s) => tree(s, args)),
  );

  server.registerTool(
    'list',
    {
      title: 'List sessions',
      description:
        'Sessions, newest first: sid, agent, project, title, number of turns, start time and first question. Open ' +
        'one with tree (its turns) or search it with find and session.',
      inputSchema: { limit: limit(20, 100), cursor },
      annotations: readOnly,
    },
    (args) => call(lazy, (s) => list(s, args)),
  );

  server.registerTool(
    'check',
    {
      title: "Check the history's audit chain",
      description:
        "Checks the shard's tamper-evident audit chain (every event's hash against the one before): ok, number of " +
        'events, the head (seq:hash, to compare with one kept elsewhere) and, when broken, where. Read-only; ' +
        '`arborist verify` recomputes every turn hash as well.',
      inputSchema: {},
      annotations: readOnly,
    },
    () => call(lazy, (s) => check(s)),
  );

  server.registerResource(
    'turn',
    // No list: a shard holds up to millions of turns; find names them.
    new ResourceTemplate('arborist://turn/{bates}', { list: undefined }),
    {
      title: 'A turn of the conversation history',
      description: 'One turn, whole, as Markdown',
      mimeType: 'text/markdown',
    },
    (uri, vars) => {
      const id = Array.isArray(vars.bates) ? vars.bates[0] : vars.bates;
      const r = call(lazy, (s) => turnText(s, decodeURIComponent(id ?? '')));
      const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
      // A resource read has no isError: its failure is the request's error, one line.
      if (r.isError) throw new Error(text);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: JSON.parse(text) as string }] };
    },
  );

  return { server, close: () => lazy.drop() };
}

/** Serves over stdin/stdout until the client closes stdin. */
export async function serveStdio(dbPath: string): Promise<void> {
  const [{ server, close }, { StdioServerTransport }, { JSONRPCMessageSchema }] = await Promise.all([
    createServer(dbPath),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  // Lines that are no JSON-RPC message are answered before the SDK sees them (stdio.ts); the rest reach it one line
  // per chunk, so its buffer (which closes the transport when it overflows) holds at most one line of MAX_LINE_BYTES.
  const lines = checkedLines(process.stdin, process.stdout, (v) => JSONRPCMessageSchema.safeParse(v).success);
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: 2 * MAX_LINE_BYTES });
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  close();
  await server.close();
}
