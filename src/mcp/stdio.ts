import { PassThrough, type Readable, type Writable } from 'node:stream';

/**
 * The lines of stdin before the MCP SDK's stdio transport reads them (docs/mcp.md, "Bad input"). The transport
 * (@modelcontextprotocol/sdk 1.32.2, dist/esm/shared/stdio.js ReadBuffer) hands a line that is no JSON, or no
 * JSON-RPC message, to `onerror` and answers nothing, so a client waits for ever; and a line over its 10 MB buffer
 * closes it, after which no request is read at all (modelcontextprotocol/typescript-sdk issue #2247 for the first).
 * JSON-RPC 2.0 (section 5.1) answers those with -32700 Parse error and -32600 Invalid Request. So each line is
 * checked here: a JSON-RPC message goes on to the transport unchanged, the rest are answered here, one line each.
 */

/** A line longer than this is never held: its bytes are dropped as they come, and it is answered at its end. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

const NEWLINE = Buffer.from('\n');
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type Check = (value: unknown) => boolean;

/** An id as JSON-RPC gives one back: a string or a number; anything else is null (JSON-RPC 2.0, section 5). */
function usableId(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * Reads `input` line by line and returns the stream the SDK's transport is to read instead: only lines that
 * `isMessage` (the SDK's own JSONRPCMessageSchema) accepts reach it, each as one chunk, so its buffer never holds
 * more than one line. Every other non-blank line is answered on `output` with id null (or the request's id, for
 * JSON-RPC it could not take). A blank line is skipped, as a keep-alive; a leading BOM is dropped (RFC 8259, 8.1).
 */
export function checkedLines(input: Readable, output: Writable, isMessage: Check): Readable {
  const out = new PassThrough();
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;

  const answer = (id: string | number | null, code: number, message: string) =>
    output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);

  const line = (whole: Buffer) => {
    const bytes = whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf ? whole.subarray(3) : whole;
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      answer(null, PARSE_ERROR, 'Parse error: the line is not JSON');
      return;
    }
    if (!isMessage(value)) {
      answer(
        usableId(value),
        INVALID_REQUEST,
        Array.isArray(value)
          ? 'Invalid Request: a batch (a JSON array) is not taken; send each message on its own line'
          : 'Invalid Request: not a JSON-RPC 2.0 request, notification or response',
      );
      return;
    }
    // The bytes as they came, not `text`: invalid UTF-8 decoded to U+FFFD is three bytes for one, and the line
    // must stay within the transport's buffer.
    out.write(Buffer.concat([bytes, NEWLINE]));
  };

  const end = () => {
    if (tooLong)
      answer(null, PARSE_ERROR, `Parse error: a line over ${MAX_LINE_BYTES / 1024 / 1024} MiB is not read`);
    else line(parts.length === 1 ? parts[0] : Buffer.concat(parts));
    parts = [];
    size = 0;
    tooLong = false;
  };

  const keep = (piece: Buffer) => {
    if (tooLong) return;
    size += piece.length;
    if (size > MAX_LINE_BYTES) {
      tooLong = true;
      parts = [];
    } else if (piece.length > 0) parts.push(piece);
  };

  input.on('data', (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let from = 0;
    for (let nl = buf.indexOf(0x0a, from); nl >= 0; nl = buf.indexOf(0x0a, from)) {
      keep(buf.subarray(from, nl));
      end();
      from = nl + 1;
    }
    // Copied: a view would keep the whole chunk alive for its tail.
    if (from < buf.length) keep(Buffer.from(buf.subarray(from)));
  });
  // A last line without its newline is dropped, as the SDK drops it.
  input.once('end', () => out.end());
  input.once('error', (err) => out.destroy(err));
  return out;
}
