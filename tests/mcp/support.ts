import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, expect } from 'vitest';
import { BIN } from '../support/cli.js';

const open: Client[] = [];

/**
 * The real SDK client, connected to the real built server (`arborist mcp --db DB`) spawned over stdio; `entry` is
 * bin/arborist, or a bundle run directly.
 */
export async function connect(db: string, entry = BIN, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'arborist-tests', version: '0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, 'mcp', '--db', db],
    // No code cache in the user's ~/.cache unless a test asks for one in a folder of its own.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ARBORIST_CODE_CACHE: 'off', ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tool results are JSON documents of many shapes
export type Json = any;

/** A tool call's one text block: its JSON when it succeeded, its one line when it is a tool error. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ error: string | undefined; json: Json; text: string }> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  const text = content[0].text;
  if (r.isError) return { error: text, json: undefined, text };
  return { error: undefined, json: JSON.parse(text), text };
}

/** The call must succeed: its JSON. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const r = await call(client, name, args);
  expect(r.error, `${name} ${JSON.stringify(args).slice(0, 200)}`).toBeUndefined();
  return r.json;
}

/** The call must be one tool error of one line: that line. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const r = await call(client, name, args);
  expect(r.error, `${name} should fail`).toBeDefined();
  expect(r.text.split('\n')).toHaveLength(1);
  return r.text;
}

/** The shard's bytes: the file and its -wal (an absent -wal and an empty one are the same: no frames). */
export function shardBytes(db: string): string {
  const h = createHash('sha256').update(readFileSync(db));
  h.update('\0wal\0');
  if (existsSync(`${db}-wal`)) h.update(readFileSync(`${db}-wal`));
  return h.digest('hex');
}
