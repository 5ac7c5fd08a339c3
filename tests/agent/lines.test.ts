/** withSessionId: only the top-level sessionId value changes; every other byte of the line is kept. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withSessionId } from '../../src/agent/index.js';

const NEW = '11111111-2222-4333-8444-555555555555';

describe('withSessionId', () => {
  it('replaces the top-level value only, and keeps the bytes JSON.stringify would change', () => {
    const line =
      '{"parentUuid":null, "text":"{\\"sessionId\\":\\"in-a-string\\"}", "n": 1.0, "big": 12345678901234567890, "e":"caf\\u00e9 \\/", "sessionId" : "old", "nested":{"sessionId":"keep"}, "list":[{"sessionId":"keep2"}]}';
    const r = withSessionId(line, NEW);
    expect(r.replaced).toBe(1);
    expect(r.line).toBe(line.replace('"sessionId" : "old"', `"sessionId" : "${NEW}"`));
    const o = JSON.parse(r.line);
    expect(o.sessionId).toBe(NEW);
    expect(o.nested.sessionId).toBe('keep');
    expect(o.list[0].sessionId).toBe('keep2');
    expect(o.text).toBe('{"sessionId":"in-a-string"}');
  });

  it('reads keys as JSON.parse does (escapes decoded); a repeated key is replaced in every place', () => {
    const r = withSessionId('{"session\\u0049d":"a","x":1,"sessionId":"b"}', NEW);
    expect(r.replaced).toBe(2);
    expect(JSON.parse(r.line).sessionId).toBe(NEW);
    expect(r.line).toBe(`{"session\\u0049d":"${NEW}","x":1,"sessionId":"${NEW}"}`);
  });

  it('leaves a line without a string sessionId as it is', () => {
    for (const l of [
      '{"type":"file-history-snapshot","messageId":"m","snapshot":{"sessionId":"x"}}',
      '{"sessionId":null,"a":[1,2]}',
      '{"sessionId":7}',
    ])
      expect(withSessionId(l, NEW)).toEqual({ line: l, replaced: 0 });
  });

  it('on any JSON object, in any spacing: parses to the same object but its sessionId, and reverses exactly', () => {
    const key = fc.string({ maxLength: 8 }).filter((k) => k !== 'sessionId' && k !== '__proto__');
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        fc.string({ maxLength: 12 }),
        fc.nat(6),
        fc.constantFrom(0, 1, 2, '\t'),
        (obj, old, at, indent) => {
          const entries = Object.entries(obj);
          entries.splice(Math.min(at, entries.length), 0, ['sessionId', old]);
          const src = JSON.stringify(Object.fromEntries(entries), null, indent);
          const r = withSessionId(src, NEW);
          expect(r.replaced).toBe(1);
          expect(JSON.parse(r.line)).toEqual({ ...JSON.parse(src), sessionId: NEW });
          expect(withSessionId(r.line, old).line).toBe(src);
        },
      ),
      { numRuns: 400 },
    );
  });
});
