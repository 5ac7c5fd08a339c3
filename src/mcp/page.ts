import { createHash } from 'node:crypto';
import { ArboristError } from '../store/index.js';

/**
 * Bounded answers. An agent's context is small and every byte of a tool result lands in it, so no result is longer
 * than BUDGET_BYTES of JSON, whatever the shard holds (a 2 MB answer, a 10,000-turn path): what does not fit is
 * left for the next call, named by an opaque cursor. A cursor carries the tool, a digest of the other arguments and
 * where to go on; given with other arguments it is refused, so a page is never spliced onto another query.
 */

/** The most bytes of JSON one tool result carries (~6,000 tokens): well under what clients accept from a tool. */
export const BUDGET_BYTES = 24 * 1024;

interface CursorBody {
  t: string;
  k: string;
  o: number;
  /** The last item given, for a list that grows at its head while it is paged (list: [created_at, sid]). */
  a?: [string, string];
}

/**
 * A short digest of a call's arguments (without the cursor and the page size): the key a cursor must match. The
 * limit is left out: a page goes on from where the last one stopped whatever its size, and an agent that wants more
 * a page next time was refused ("given for other arguments").
 */
function argsKey(args: Record<string, unknown>): string {
  const { cursor: _cursor, limit: _limit, ...rest } = args;
  const sorted = Object.keys(rest)
    .filter((k) => rest[k] !== undefined)
    .sort()
    .map((k) => [k, rest[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url').slice(0, 12);
}

export function makeCursor(
  tool: string,
  args: Record<string, unknown>,
  offset: number,
  anchor?: [string, string],
): string {
  const body: CursorBody = { t: tool, k: argsKey(args), o: offset, ...(anchor ? { a: anchor } : {}) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** Where a call goes on from: 0 without a cursor; a cursor this tool did not give for these arguments is refused. */
export function cursorOffset(tool: string, args: Record<string, unknown> & { cursor?: string }): number {
  return cursorAt(tool, args).offset;
}

/** cursorOffset, with the last item the previous page gave when its cursor names one. */
export function cursorAt(
  tool: string,
  args: Record<string, unknown> & { cursor?: string },
): { offset: number; anchor?: [string, string] } {
  const c = args.cursor;
  if (c === undefined) return { offset: 0 };
  let body: Partial<CursorBody> | undefined;
  try {
    if (/^[A-Za-z0-9_-]{1,400}$/.test(c)) body = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  if (
    body === undefined ||
    body === null ||
    typeof body.t !== 'string' ||
    typeof body.k !== 'string' ||
    !Number.isSafeInteger(body.o) ||
    (body.o as number) < 0 ||
    (body.a !== undefined &&
      !(Array.isArray(body.a) && body.a.length === 2 && body.a.every((x) => typeof x === 'string')))
  )
    throw new ArboristError(
      'usage',
      'cursor is not one this server gave: call again without it to start over',
    );
  if (body.t !== tool)
    throw new ArboristError(
      'usage',
      `cursor is from the ${body.t} tool, not ${tool}: call ${tool} without it`,
    );
  if (body.k !== argsKey(args))
    throw new ArboristError(
      'usage',
      'cursor was given for other arguments: repeat the call that returned it with the same arguments',
    );
  return { offset: body.o as number, ...(body.a ? { anchor: body.a } : {}) };
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * As many of `items` (from `offset` on) as fit the budget and `limit`, at least one so that paging always moves
 * on: a single item over the budget is the caller's to cut (each tool cuts its long text before it gets here).
 */
export function takePage<T>(
  items: readonly T[],
  offset: number,
  limit: number,
  overhead: number,
): { page: T[]; next: number | null } {
  const page: T[] = [];
  let bytes = overhead;
  let i = offset;
  for (; i < items.length && page.length < limit; i++) {
    const b = jsonBytes(items[i]) + 1;
    if (page.length > 0 && bytes + b > BUDGET_BYTES) break;
    page.push(items[i]);
    bytes += b;
  }
  return { page, next: i < items.length ? i : null };
}
