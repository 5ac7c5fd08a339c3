import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readClaude } from '../../src/import/claude/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * One huge record (a pasted log as a prompt, an enormous reply) must cost only itself: it is cut with one problem
 * naming its line, and every other turn of the session is imported (docs/import.md, Claude Code, "Problems").
 */

const SID = 'cccc0000-0000-4000-8000-000000000003';
const MiB = 2 ** 20;

/** Six ordinary turns with a seventh between them whose prompt (or answer) is `bigBytes` long; built in chunks. */
function session(dir: string, where: 'prompt' | 'answer', bigBytes: number): string {
  const file = join(dir, `${SID}.jsonl`);
  const fd = openSync(file, 'w');
  let parent: string | null = null;
  let t = 0;
  const head = (type: string, uuid: string) => {
    const h = `{"parentUuid":${JSON.stringify(parent)},"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"${SID}","version":"2.1.0","type":"${type}",`;
    parent = uuid;
    return h;
  };
  // Claude Code writes uuid and timestamp after the message: the cut must keep them.
  const tail = (uuid: string) =>
    `,"uuid":"${uuid}","timestamp":"${new Date(Date.UTC(2026, 1, 1, 9, 0, t++)).toISOString()}"}\n`;
  // 64 bytes of log repeated (the line ends on a whole piece): the prompt's with JSON escapes and a two-byte
  // letter, the answer's plain ASCII, so that its 17 MiB are 17 Mi characters, more than a turn can hold.
  const text =
    where === 'prompt'
      ? '0123456789abcdef log line \\"quoted\\" é\\n'.padEnd(63, '.')
      : 'log line '.padEnd(64, '.');
  const piece = Buffer.from(text);
  const block = Buffer.concat(Array.from({ length: MiB / piece.length }, () => piece));
  const big = (prefix: string, suffix: string) => {
    writeSync(fd, prefix);
    for (let left = bigBytes; left > 0; left -= block.length) writeSync(fd, block);
    writeSync(fd, suffix);
  };
  const user = (uuid: string, text: string | null) => {
    const h = `${head('user', uuid)}"message":{"role":"user","content":`;
    if (text === null) big(`${h}"`, `"}${tail(uuid)}`);
    else writeSync(fd, `${h}${JSON.stringify(text)}}${tail(uuid)}`);
  };
  const assistant = (uuid: string, text: string | null) => {
    const h = `${head('assistant', uuid)}"message":{"id":"m_${uuid}","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":`;
    const end = `}],"stop_reason":"end_turn"}${tail(uuid)}`;
    if (text === null) big(`${h}"`, `"${end}`);
    else writeSync(fd, `${h}${JSON.stringify(text)}${end}`);
  };
  for (let i = 1; i <= 3; i++) {
    user(`p${i}`, `prompt ${i}`);
    assistant(`a${i}`, `answer ${i}`);
  }
  user('pbig', where === 'prompt' ? null : 'make a big reply');
  assistant('abig', where === 'answer' ? null : 'a short reply');
  for (let i = 4; i <= 6; i++) {
    user(`p${i}`, `prompt ${i}`);
    assistant(`a${i}`, `answer ${i}`);
  }
  closeSync(fd);
  return file;
}

function stored(db: string): { question: string; answer: string }[] {
  const d = new Database(db, { readonly: true });
  try {
    return d
      .prepare(
        "SELECT question, answer_text AS answer FROM nodes WHERE source = 'claude' ORDER BY created_at",
      )
      .all() as { question: string; answer: string }[];
  } finally {
    d.close();
  }
}

describe('a huge Claude Code record', () => {
  for (const [where, bytes, line] of [
    ['prompt', 200 * MiB, 7],
    ['answer', 17 * MiB, 8],
  ] as const) {
    it(`a ${bytes / MiB} MiB ${where} is cut with one problem on its line; the session's other turns are imported`, () => {
      const dir = tempDir('arb-huge-');
      const file = session(dir, where, bytes);
      const db = join(dir, 'sessions.db');
      const r = cli(['import', 'claude', file, '--db', db, '--json']);
      expect(r.code, r.stderr + r.stdout.slice(0, 2000)).toBe(1);
      const s = r.json();
      expect([s.files, s.sessions, s.turns_added]).toEqual([1, 1, 7]);
      expect(s.problems).toEqual([
        {
          file,
          line,
          reason: expect.stringMatching(new RegExp(`^line of ${bytes / MiB} MiB is over the 16 MiB limit`)),
        },
      ]);
      const turns = stored(db);
      expect(turns.map((t) => t.question.slice(0, 20))).toEqual([
        'prompt 1',
        'prompt 2',
        'prompt 3',
        where === 'prompt' ? '0123456789abcdef log' : 'make a big reply',
        'prompt 4',
        'prompt 5',
        'prompt 6',
      ]);
      const cut = turns[3][where === 'prompt' ? 'question' : 'answer'];
      expect(cut.length).toBeLessThanOrEqual(16 * MiB);
      expect(cut.length).toBeGreaterThan(14 * MiB);
      expect(cut).toMatch(/… \[cut: \d+ more bytes\]$/);
      expect(turns[4].answer).toBe('answer 4');
      expect(cli(['verify', '--db', db, '--json']).json().ok).toBe(true);
    }, 30_000);
  }

  it('a reply of several long lines, over 16 MiB in all, is cut to fit with one problem on its turn', () => {
    const dir = tempDir('arb-huge-');
    const file = join(dir, `${SID}.jsonl`);
    const line = (o: object) =>
      JSON.stringify({ sessionId: SID, timestamp: '2026-02-01T09:00:00.000Z', ...o });
    const reply = (uuid: string, parentUuid: string, text: string, stop: string | null) =>
      line({
        type: 'assistant',
        uuid,
        parentUuid,
        message: { role: 'assistant', content: [{ type: 'text', text }], stop_reason: stop },
      });
    writeFileSync(
      file,
      `${[
        line({
          type: 'user',
          uuid: 'p1',
          parentUuid: null,
          message: { role: 'user', content: 'write a lot' },
        }),
        reply('a1', 'p1', 'x'.repeat(9 * MiB - 100), null),
        reply('a2', 'a1', 'y'.repeat(9 * MiB - 100), 'end_turn'),
        line({ type: 'user', uuid: 'p2', parentUuid: 'a2', message: { role: 'user', content: 'thanks' } }),
        reply('a3', 'p2', 'ok', 'end_turn'),
      ].join('\n')}\n`,
    );
    const src = readClaude(file);
    expect(src.problems).toEqual([{ file, line: 1, reason: 'answer of 18 MiB cut to 16 MiB' }]);
    expect(src.turns.map((t) => t.answer.length <= 16 * MiB)).toEqual([true, true]);
    expect(src.turns[0].answer).toMatch(/^x+\n\ny+\n… \[cut: \d+ more characters\]$/);
  });
});
