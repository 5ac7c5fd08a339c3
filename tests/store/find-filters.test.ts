import { describe, expect, it } from 'vitest';
import { parseQuery, type Shard } from '../../src/store/index.js';
import { dbOf, markedSnippet, newestFilteredMatches } from '../../src/store/testing.js';
import { newShard } from './util.js';

/** Three agents' sessions in two projects, turns on three days; every turn mentions "lifetime". */
function corpus(): Shard {
  const s = newShard();
  s.createSession({
    sid: 'cccc',
    created_at: '2026-10-01T00:00:00.000Z',
    source: { source: 'claude', source_session: 'C1', info: { cwd: '/home/ana/shop', project: 'shop' } },
  });
  s.createSession({
    sid: 'xxxx',
    created_at: '2026-10-01T00:00:00.000Z',
    source: { source: 'codex', source_session: 'X1', info: { cwd: '/home/ana/garden' } },
  });
  s.createSession({ sid: 'aaaa', created_at: '2026-10-01T00:00:00.000Z' });
  const add = (session: string, day: string, question: string, answer: string) =>
    s.addTurn({ session, question, answer_text: answer, created_at: `${day}T12:00:00.000Z` }).bates;
  add('cccc', '2026-10-15', 'lifetime of a cart', 'carts expire');
  add('xxxx', '2026-11-02', 'codex question', 'the lifetime is bound by the borrow');
  add('aaaa', '2026-11-20', 'lifetime in arborist', 'asked here');
  add('cccc', '2026-12-01', 'checkout flow', 'a lifetime guarantee');
  return s;
}

const q = (s: Shard, text: string) => s.search(text, { prefix: false });
const where = (s: Shard, text: string) =>
  q(s, text)
    .hits.map((h) => `${h.sid}:${h.question}`)
    .sort();

describe('find filters, applied by the engine', () => {
  it('parses filters out of the text, leaving the words', () => {
    expect(parseQuery('rust agent:codex after:2026-11-01 in:question')).toMatchObject({
      text: 'rust',
      filters: { agent: 'codex', after: '2026-11-01', in: 'question' },
      problems: [],
      invalid: false,
    });
    // URLs and C++ scopes stay text
    expect(parseQuery('http://x std::vector').text).toBe('http://x std::vector');
    expect(parseQuery('after:2026-02-30').invalid).toBe(true);
    expect(parseQuery('in:answers').problems[0]).toMatch(/in: takes 'question'/);
    const unknown = parseQuery('color:red Agnt:x lifetime');
    // Named, not worded: the CLI and the find box say it with the filter meant (src/text/suggest.ts).
    expect(unknown.unknownFilters).toEqual(['color', 'agnt']);
    expect(unknown.problems).toEqual([]);
    expect(unknown.invalid).toBe(false);
    expect(unknown.text).toBe('color:red Agnt:x lifetime');
  });

  it('agent: keeps the sessions of one source kind, arborist the sessions asked here', () => {
    const s = corpus();
    expect(where(s, 'lifetime')).toHaveLength(4);
    expect(where(s, 'lifetime agent:codex')).toEqual(['xxxx:codex question']);
    expect(where(s, 'lifetime agent:cl')).toEqual(['cccc:checkout flow', 'cccc:lifetime of a cart']);
    expect(where(s, 'lifetime agent:arborist')).toEqual(['aaaa:lifetime in arborist']);
    const r = q(s, 'lifetime agent:gemini');
    expect(r.hits).toEqual([]);
    expect(r.problems[0]).toMatch(/no agent 'gemini' in this shard \(agents: arborist, claude, codex\)/);
  });

  it('sees a session imported after the filter was first used (its origins are read again)', () => {
    const s = corpus();
    expect(where(s, 'lifetime agent:codex')).toEqual(['xxxx:codex question']);
    s.createSession({ sid: 'yyyy', source: { source: 'codex', source_session: 'X2' } });
    s.addTurn({ session: 'yyyy', question: 'another lifetime', answer_text: 'z' });
    expect(where(s, 'lifetime agent:codex')).toEqual(['xxxx:codex question', 'yyyy:another lifetime']);
  });

  it('project: matches the project name or the working directory', () => {
    const s = corpus();
    expect(where(s, 'lifetime project:shop')).toEqual(['cccc:checkout flow', 'cccc:lifetime of a cart']);
    expect(where(s, 'lifetime project:GARDEN')).toEqual(['xxxx:codex question']);
    expect(where(s, 'lifetime project:nowhere')).toEqual([]);
  });

  it('after: (inclusive) and before: (exclusive) bound the turn date', () => {
    const s = corpus();
    expect(where(s, 'lifetime after:2026-11-02')).toEqual([
      'aaaa:lifetime in arborist',
      'cccc:checkout flow',
      'xxxx:codex question',
    ]);
    expect(where(s, 'lifetime before:2026-11-02')).toEqual(['cccc:lifetime of a cart']);
    expect(where(s, 'lifetime after:2026-11 before:2026-12')).toEqual([
      'aaaa:lifetime in arborist',
      'xxxx:codex question',
    ]);
    const bad = q(s, 'lifetime after:yesterday');
    expect(bad.hits).toEqual([]);
    expect(bad.problems[0]).toMatch(/after: wants a date/);
  });

  it('dates bound the walk by turn id, and a turn imported later with an older date is still found', () => {
    // Ids follow writes, dates follow the sources: the newest id can be the oldest day. Bulk, one by one, archived.
    const s = newShard();
    const sid = s.createSession({ created_at: '2020-01-01T00:00:00.000Z' }).sid;
    const day = (d: string) => `${d}T08:00:00.000Z`;
    const turn = (question: string, d: string) => ({
      sid,
      parent: null,
      content: { question, answer_text: 'a', created_at: day(d) },
    });
    s.addTurnsBulk([turn('needle march', '2026-03-01'), turn('needle june', '2026-06-01')], {
      kind: 'nodes.bulk',
      data: { generator: 'test', seed: 0 },
    });
    s.addTurn({ session: sid, question: 'needle january', answer_text: 'a', created_at: day('2026-01-01') });
    s.addTurn({ session: sid, question: 'needle december', answer_text: 'a', created_at: day('2026-12-01') });
    s.addTurnsBulk([turn('needle february', '2026-02-01')], {
      kind: 'nodes.bulk',
      data: { generator: 't', seed: 1 },
    });
    const days = (text: string) => where(s, text).map((x) => x.split(' ')[1]);
    expect(days('needle before:2026-03-01')).toEqual(['february', 'january']);
    expect(days('needle before:2026-03-02')).toEqual(['february', 'january', 'march']);
    expect(days('needle after:2026-06-01')).toEqual(['december', 'june']);
    expect(days('needle after:2026-02 before:2026-07')).toEqual(['february', 'june', 'march']);
    expect(days('before:2026-02-01')).toEqual(['january']);
    expect(days('needle before:2026-01-01')).toEqual([]);
    expect(days('needle after:2027-01-01')).toEqual([]);
    // What bounds the walk: the largest id before a day, the smallest from it, read per day.
    const bounds = dbOf(s).prepare('SELECT day, min_id, max_id FROM node_days ORDER BY day').raw(true).all();
    expect(bounds).toEqual(
      dbOf(s)
        .prepare('SELECT substr(created_at, 1, 10), min(id), max(id) FROM nodes GROUP BY 1 ORDER BY 1')
        .raw(true)
        .all(),
    );
  });

  it('before: far back walks windows of ids going back and keeps the newest that pass, whatever their order', () => {
    const s = newShard();
    const sid = s.createSession({ created_at: '2020-01-01T00:00:00.000Z' }).sid;
    // 6,000 turns over 60 days; one in 97 from the first day written late (its id among newer days), one in five
    // holding the word only in its answer: the turns before the second day are spread thin over every window.
    const turns = Array.from({ length: 6000 }, (_, i) => {
      const d = i % 97 === 3 ? 1 : 1 + Math.floor(i / 100);
      const day = `2026-${String(1 + Math.floor((d - 1) / 28)).padStart(2, '0')}-${String(1 + ((d - 1) % 28)).padStart(2, '0')}`;
      const word = i % 5 === 0 ? 'other' : 'needle';
      return {
        sid,
        parent: null,
        content: {
          question: `${word} ${i}`,
          answer_text: i % 5 === 0 ? 'needle' : 'x',
          created_at: `${day}T01:00:00.000Z`,
        },
      };
    });
    s.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
    const all = dbOf(s)
      .prepare('SELECT question, created_at FROM nodes ORDER BY id DESC')
      .raw(true)
      .all() as [string, string][];
    for (const [before, where] of [
      ['2026-01-02', 'question'],
      ['2026-01-03', 'question'],
      ['2026-02-10', 'question'],
      ['2026-01-02', 'any'],
    ] as const) {
      const want = all
        .filter(([q, c]) => c < before && (where === 'any' || q.startsWith('needle')))
        .slice(0, where === 'any' ? 5 : 150)
        .map(([q]) => q);
      const got = s
        .search(`needle before:${before}${where === 'question' ? ' in:question' : ''}`, {
          prefix: false,
          limit: where === 'any' ? 5 : 150,
        })
        .hits.map((h) => h.question);
      if (where === 'question') expect(got.sort()).toEqual([...want].sort());
      else expect(got.length).toBe(want.length);
    }
    // The walk itself: the newest passing ids below the bound, newest first, each once, over many windows (the
    // questions: a window of ids holds fewer matches than ids, so each read runs on past it).
    const ids = dbOf(s)
      .prepare(
        "SELECT id FROM nodes WHERE created_at < '2026-02-10' AND question LIKE 'needle%' ORDER BY id DESC LIMIT 200",
      )
      .pluck()
      .all() as number[];
    const maxId = ids[0];
    const walked = newestFilteredMatches(
      dbOf(s),
      'questions_fts',
      '"needle"',
      200,
      'n.created_at < @before AND n.id <= @maxId',
      { before: '2026-02-10', maxId },
      ' AND f.rowid <= @maxId',
    );
    expect(walked).toEqual(ids);
    const sparse = dbOf(s)
      .prepare(
        "SELECT id FROM nodes WHERE created_at < '2026-01-02' AND question LIKE 'needle%' ORDER BY id DESC",
      )
      .pluck()
      .all() as number[];
    expect(
      newestFilteredMatches(
        dbOf(s),
        'questions_fts',
        '"needle"',
        1000,
        'n.created_at < @before AND n.id <= @maxId',
        { before: '2026-01-02', maxId: sparse[0] },
      ),
    ).toEqual(sparse);
  });

  it('in:question leaves out turns that match only in the answer', () => {
    const s = corpus();
    expect(where(s, 'lifetime in:question')).toEqual([
      'aaaa:lifetime in arborist',
      'cccc:lifetime of a cart',
    ]);
  });

  it('filters alone list the newest turns that pass them; hits carry agent and project', () => {
    const s = corpus();
    const r = q(s, 'agent:claude');
    expect(r.hits.map((h) => h.question)).toEqual(['checkout flow', 'lifetime of a cart']);
    expect(r.hits[0]).toMatchObject({ agent: 'claude', project: '/home/ana/shop' });
    expect(q(s, 'codex').hits[0]).toMatchObject({ agent: 'codex', project: '/home/ana/garden' });
    expect(q(s, 'arborist').hits[0]).toMatchObject({ agent: null, project: null });
  });

  it('the filter is applied before the limit, not to a page of hits', () => {
    const s = newShard();
    s.createSession({ sid: 'old1', source: { source: 'codex', source_session: 'O' } });
    s.createSession({ sid: 'new1' });
    s.addTurn({ session: 'old1', question: 'needle old', answer_text: 'x' });
    for (let i = 0; i < 300; i++) s.addTurn({ session: 'new1', question: `needle ${i}`, answer_text: 'y' });
    // the codex turn is older than the 200 newest candidates an unfiltered query reads
    expect(s.search('needle agent:codex', { prefix: false, limit: 5 }).hits.map((h) => h.question)).toEqual([
      'needle old',
    ]);
  });

  it('answerSnippets gives snippets to the hits matched only in their answer', () => {
    const s = corpus();
    const r = s.search('borrow', { prefix: false, snippets: 0, answerSnippets: true });
    expect(r.hits[0].field).toBe('answer');
    expect(r.hits[0].snippet).toContain('«borrow»');
    const p = s.search('borro', { snippets: 0, answerSnippets: true });
    expect(p.hits[0].snippet).toContain('«borrow»');
  });

  it('a linear snippet marks the place the term starts a word, not its first place inside one', () => {
    expect(markedSnippet('see vitest.config.ts and cart.test.js', 'test')).toBe(
      'see vitest.config.ts and cart.«test».js',
    );
    expect(markedSnippet('only vitest here', 'test')).toBe('only vi«test» here');
  });
});
