import { describe, expect, it } from 'vitest';
import { type CutLimits, cutLine, MAX_LINE_BYTES } from '../../src/import/long-lines.js';

/** Small limits, so that every boundary can be tried (the real ones: 15 MiB kept, 1 KiB, 32 MiB). */
const L: CutLimits = { keep: 100, short: 8, max: 1000 };

/** `{"k":"<filler><piece><rest>","uuid":"u1"}` with `piece` starting `at` bytes into the string. */
function line(piece: string, at: number): Buffer {
  return Buffer.from(`{"k":"${'a'.repeat(at)}${piece}${'z'.repeat(200)}","uuid":"u1"}`);
}

describe('cutLine (a line over the limit, cut before it is decoded)', () => {
  it('never cuts inside an escape or a UTF-8 character; keeps the keys and ids after the cut string', () => {
    for (const piece of ['\\u00e9', '\\"', '\\\\', '\\n', '\\\\\\"', 'é', '😀', '\\ud83d\\ude00']) {
      for (let at = 85; at <= 100; at++) {
        const s = line(piece, at);
        const whole = JSON.parse(s.toString()) as { k: string };
        const cut = cutLine(s, L);
        const o = JSON.parse(cut!.text) as { k: string; uuid: string };
        expect(o.uuid).toBe('u1');
        const [kept, more] = o.k.split('… [cut: ');
        // one lone high surrogate is allowed at the end: the store makes text well-formed
        expect(whole.k.startsWith(kept.replace(/[\ud800-\udbff]$/, '')), `${piece} at ${at}`).toBe(true);
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(100);
        expect(more).toMatch(/^\d+ more bytes\]$/);
        expect(cut!.cut).toBe(1);
      }
    }
  });

  it('past the budget, every long string keeps its first bytes; short ones stay whole', () => {
    const s = Buffer.from(JSON.stringify({ a: 'b'.repeat(150), b: 'c'.repeat(50), id: 'x'.repeat(8) }));
    const o = JSON.parse(cutLine(s, L)!.text) as { a: string; b: string; id: string };
    expect(o.a).toBe(`${'b'.repeat(99)}… [cut: 51 more bytes]`); // "a" took one byte of the 100
    expect(o.b).toBe(`${'c'.repeat(8)}… [cut: 42 more bytes]`);
    expect(o.id).toBe('xxxxxxxx');
  });

  it('a line that is mostly structure is refused; a truncated one stays truncated', () => {
    expect(cutLine(Buffer.from(`[${'1,'.repeat(600)}1]`), L)).toBeUndefined();
    expect(() => JSON.parse(cutLine(Buffer.from(`{"k":"${'a'.repeat(300)}`), L)!.text)).toThrow();
  });

  it('the real limits: a 20 MiB string keeps 15 MiB, its line parses, in bounded time', () => {
    const s = Buffer.from(`{"type":"user","message":{"content":"${'é'.repeat(10 * 2 ** 20)}"},"uuid":"u"}`);
    expect(s.length).toBeGreaterThan(MAX_LINE_BYTES);
    const t0 = performance.now();
    const o = JSON.parse(cutLine(s)!.text) as { message: { content: string }; uuid: string };
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(o.uuid).toBe('u');
    expect(Buffer.byteLength(o.message.content)).toBeLessThan(15 * 2 ** 20 + 100);
    expect(Buffer.byteLength(o.message.content)).toBeGreaterThan(15 * 2 ** 20 - 100);
  });
});
