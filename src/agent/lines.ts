/**
 * One Claude Code line with its `sessionId` changed and every other byte kept. Re-serialising a parsed line
 * (JSON.stringify(JSON.parse(line))) keeps key order but not the bytes: `1.0` becomes `1`, `1e3` `1000`, `\u00e9`
 * and `\/` become `é` and `/`, an integer past 2^53 loses digits, `-0` becomes `0`, a repeated key is dropped, and
 * spacing changes. So the line is not re-serialised: a scan finds the value of the top-level `sessionId` key (as
 * JSON.parse reads keys, escapes decoded) and only that string token is replaced. Everything else, nested objects
 * that happen to hold a `sessionId` of their own included, is copied as it was.
 */

export interface Rewritten {
  line: string;
  /** How many top-level `sessionId` string values were replaced (0: the line has none, or not a string). */
  replaced: number;
}

/** The index just past the JSON string token that starts at `i` (a `"`), or -1 when it does not end. */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22 /* " */) return j + 1;
  }
  return -1;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/**
 * The spans of the top-level `sessionId` string values of a JSON object line. The line must be valid JSON (the
 * caller parsed it); a byte-order mark before it is allowed.
 */
function sessionIdSpans(s: string): [number, number][] {
  const spans: [number, number][] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(s, i);
      if (end < 0) return spans;
      if (depth === 1 && expectKey) {
        expectKey = false;
        let key: unknown;
        try {
          key = JSON.parse(s.slice(i, end));
        } catch {
          return spans;
        }
        let j = skipSpace(s, end);
        if (s.charCodeAt(j) !== 0x3a /* : */) return spans;
        j = skipSpace(s, j + 1);
        if (key === 'sessionId' && s.charCodeAt(j) === 0x22) {
          const vEnd = stringEnd(s, j);
          if (vEnd < 0) return spans;
          spans.push([j, vEnd]);
          i = vEnd;
          continue;
        }
        i = j;
        continue;
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++;
      expectKey = depth === 1 && c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
    else if (c === 0x2c /* , */ && depth === 1) expectKey = true;
    i++;
  }
  return spans;
}

/** The line with every top-level `sessionId` string value replaced by `id` (JSON-encoded), nothing else changed. */
export function withSessionId(line: string, id: string): Rewritten {
  const spans = sessionIdSpans(line);
  if (spans.length === 0) return { line, replaced: 0 };
  const token = JSON.stringify(id);
  let out = '';
  let at = 0;
  for (const [a, b] of spans) {
    out += line.slice(at, a) + token;
    at = b;
  }
  out += line.slice(at);
  return { line: out, replaced: spans.length };
}
