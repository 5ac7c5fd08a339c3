import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { BIN } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * `arborist mcp` as a careless or hostile client meets it, bytes on stdin (docs/mcp.md, "Bad input"): JSON-RPC 2.0
 * answers a line that is no JSON with -32700 and JSON that is no JSON-RPC message with -32600. The SDK's stdio
 * transport dropped both unanswered (a client waited for ever), and a line over 10 MB closed it: every later
 * request was read by no one.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages of many shapes
type Msg = any;

interface Server {
  child: ChildProcessWithoutNullStreams;
  write: (data: string | Buffer) => Promise<void>;
  /** The next line on stdout, parsed; fails after `ms`. */
  next: (ms?: number) => Promise<Msg>;
  /** Whether a line comes within `ms` (the line itself stays queued). */
  quiet: (ms: number) => Promise<boolean>;
}

const running: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  while (running.length > 0) running.pop()!.kill('SIGKILL');
});

function start(): Server {
  const db = tempDb();
  const s = Shard.open(db);
  s.createSession({ sid: 'aaaa', label: 'here' });
  s.addTurn({ session: 'aaaa', question: 'lifetime of a cart', answer_text: 'a day' });
  s.close();
  const child = spawn(process.execPath, [BIN, 'mcp', '--db', db], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ARBORIST_CODE_CACHE: 'off' },
  });
  running.push(child);
  const lines: string[] = [];
  const waiting: (() => void)[] = [];
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s: string) => {
    rest += s;
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
      lines.push(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
    }
    for (const w of waiting.splice(0)) w();
  });
  const arrived = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (lines.length > 0) return resolve(true);
      const t = setTimeout(() => resolve(false), ms);
      waiting.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  return {
    child,
    write: (data) => new Promise((resolve) => child.stdin.write(data, () => resolve())),
    async next(ms = 10_000) {
      while (lines.length === 0) if (!(await arrived(ms))) throw new Error(`no reply in ${ms} ms`);
      return JSON.parse(lines.shift()!);
    },
    quiet: async (ms) => !(await arrived(ms)),
  };
}

const request = (id: number | string, method: string, params: Msg = {}) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;

async function initialize(s: Server): Promise<void> {
  await s.write(
    request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    }),
  );
  expect((await s.next()).result.serverInfo.name).toBe('arborist');
  await s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
}

/** A find over the wire: the request after the bad input is served as if nothing had happened. */
async function served(s: Server, id: number): Promise<void> {
  await s.write(request(id, 'tools/call', { name: 'find', arguments: { query: 'cart' } }));
  const r = await s.next();
  expect(r.id).toBe(id);
  expect(JSON.parse(r.result.content[0].text).hits).toHaveLength(1);
}

function expectError(m: Msg, code: number, id: number | string | null = null): void {
  expect(Object.keys(m).sort()).toEqual(['error', 'id', 'jsonrpc']);
  expect([m.jsonrpc, m.id, m.error.code]).toEqual(['2.0', id, code]);
  expect(typeof m.error.message).toBe('string');
  expect(m.error.message).not.toMatch(/[\n\x1b]/);
}

describe('arborist mcp, bytes on stdin that are no request', () => {
  it('a line that is no JSON: -32700 with id null; the next request is served', async () => {
    const s = start();
    await initialize(s);
    for (const line of ['not json', '{"jsonrpc":"2.0","id":1,', "{'single': 'quotes'}", '\x1b[31m{}']) {
      await s.write(`${line}\n`);
      expectError(await s.next(), -32700);
    }
    await served(s, 2);
  });

  it('JSON that is no JSON-RPC message: -32600, with its id when it has a usable one', async () => {
    const s = start();
    await initialize(s);
    const cases: [string, number | string | null][] = [
      ['42', null],
      ['"a string"', null],
      ['null', null],
      ['{}', null],
      ['[]', null],
      [`[${request(5, 'ping').trim()}]`, null], // a batch: MCP has none since 2025-06-18
      ['{"jsonrpc":"1.0","id":7,"method":"ping"}', 7],
      ['{"jsonrpc":"2.0","id":"x8","method":5}', 'x8'],
      ['{"jsonrpc":"2.0","id":{"nested":1},"method":"ping"}', null],
      ['{"id":9,"method":"ping"}', 9],
    ];
    for (const [line, id] of cases) {
      await s.write(`${line}\n`);
      const m = await s.next();
      expect([line, m.id]).toEqual([line, id]);
      expectError(m, -32600, id);
    }
    await served(s, 10);
  });

  it('binary junk is answered -32700 once its line ends; the next request is served', async () => {
    const s = start();
    await initialize(s);
    // 256 KiB without a newline in it, in one write, then its end.
    const junk = randomBytes(256 * 1024).map((b) => (b === 0x0a ? 0x20 : b));
    await s.write(Buffer.concat([junk, Buffer.from('\n')]));
    expectError(await s.next(), -32700);
    await served(s, 1);
  });

  it('a line over the limit is answered and dropped as it comes; the transport stays open for the next request', async () => {
    const s = start();
    await initialize(s);
    // 24 MiB on one line, in pieces as a pipe gives them: valid JSON, more than any request needs and more than the
    // SDK's 10 MB buffer, whose overflow closed its transport (no later request was read).
    await s.write(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find","arguments":{"query":"',
    );
    const piece = 'a'.repeat(1024 * 1024);
    for (let i = 0; i < 24; i++) await s.write(piece);
    await s.write('"}}}\n');
    const big = await s.next(30_000);
    expectError(big, -32700);
    expect(big.error.message).toMatch(/over 8 MiB/);
    await served(s, 3);
    // Invalid UTF-8 inside a JSON string, just under the limit: it reaches the SDK as the bytes it was (decoded,
    // each bad byte is three), within the SDK's buffer; ping ignores the params.
    const head = Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"');
    const tail = Buffer.from('"}}\n');
    const fill = Buffer.alloc(8 * 1024 * 1024 - head.length - tail.length - 1, 0xff);
    await s.write(Buffer.concat([head, fill, tail]));
    expect(await s.next(30_000)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    await served(s, 5);
    expect(s.child.exitCode).toBe(null);
  });

  it('a blank line gets no reply; a request sent in pieces, CRLF and a BOM are read as the SDK reads them', async () => {
    const s = start();
    await initialize(s);
    await s.write('\n  \n\r\n');
    expect(await s.quiet(500)).toBe(true);
    const r = request(1, 'ping');
    await s.write(r.slice(0, 10));
    await s.write(r.slice(10));
    expect(await s.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await s.write(`${request(2, 'ping').trim()}\r\n`);
    expect(await s.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await s.write(`\ufeff${request(3, 'ping')}`);
    expect(await s.next()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    // Two on one write, a bad one between them: each answered (by id: the error is written first).
    await s.write(`${request(4, 'ping')}oops\n${request(5, 'ping')}`);
    const three = [await s.next(), await s.next(), await s.next()];
    expect(three.map((m) => m.id).sort()).toEqual([4, 5, null]);
    expectError(
      three.find((m) => m.id === null),
      -32700,
    );
  });

  it('ends when stdin ends, after bad input too', async () => {
    const s = start();
    await initialize(s);
    await s.write('junk\n');
    expectError(await s.next(), -32700);
    const exited = new Promise<number | null>((resolve) => s.child.on('exit', (code) => resolve(code)));
    s.child.stdin.end();
    expect(await exited).toBe(0);
  });
});
