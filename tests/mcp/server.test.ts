import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUDGET_BYTES } from '../../src/mcp/page.js';
import { Shard } from '../../src/store/index.js';
import { BIN, cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { shard } from './sample.js';
import { call, connect, fails, type Json, ok } from './support.js';

/**
 * `arborist mcp` as an agent meets it: the real SDK client drives the real built server over stdio. Every bad
 * argument is one tool error of one line, and the next call is served as if nothing had happened.
 */

describe('arborist mcp', () => {
  it('initializes as arborist and lists its six tools, each described, with a schema', async () => {
    const c = await connect(shard());
    expect(c.getServerVersion()?.name).toBe('arborist');
    expect(c.getInstructions()).toMatch(/Bates id/);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['check', 'find', 'list', 'path', 'show', 'tree']);
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    const find = tools.find((t) => t.name === 'find')!;
    expect(Object.keys(find.inputSchema.properties ?? {}).sort()).toEqual(
      ['after', 'agent', 'before', 'cursor', 'in', 'limit', 'project', 'query', 'session'].sort(),
    );
    expect(find.inputSchema.required).toEqual(['query']);
  });

  it('finds with the CLI’s filters, and a hit’s Bates id opens with show, path and the turn resource', async () => {
    const db = shard();
    const c = await connect(db);
    const all = await ok(c, 'find', { query: 'lifetime' });
    expect(all.hits).toHaveLength(3);
    for (const h of all.hits) expect(h.bates).toMatch(/^[a-z]{4}-\d{6}$/);
    // each hit names its session, which tree takes (it wanted a sid no hit gave)
    for (const h of all.hits) expect(h.sid).toBe(h.bates.split('-')[0]);
    const codex = await ok(c, 'find', { query: 'lifetime', agent: 'codex' });
    expect(codex.hits).toHaveLength(1);
    expect(codex.hits[0]).toMatchObject({
      agent: 'codex',
      project: '/home/ana/garden',
      question: 'codex question',
    });
    expect(codex.hits[0].created_at).toMatch(/^2026-11-02/);
    expect(
      (await ok(c, 'find', { query: 'lifetime', project: 'shop' })).hits.map((h: Json) => h.bates),
    ).toEqual(['cccc-000001']);
    const dated = await ok(c, 'find', { query: 'lifetime', after: '2026-11-01', before: '2026-11-10' });
    expect(dated.hits.map((h: Json) => h.question)).toEqual(['codex question']);
    expect((await ok(c, 'find', { query: 'lifetime', in: 'question' })).hits).toHaveLength(2);
    expect((await ok(c, 'find', { query: 'lifetime', session: 'here' })).hits).toHaveLength(1);
    // No words but a filter: the newest turns that pass it, as `arborist find agent:codex` gives.
    expect((await ok(c, 'find', { query: '', agent: 'claude' })).hits).toHaveLength(2);
    // A name in the words typed as a filter that is none: noted with the filter meant, as `arborist find` says it.
    expect((await ok(c, 'find', { query: 'lifetime agnt:codex' })).notes).toEqual([
      'agnt: is no filter (did you mean agent:?); searched it as words',
    ]);

    const wal = await ok(c, 'find', { query: 'decided WAL' });
    const bates = wal.hits[0].bates;
    const turn = await ok(c, 'show', { bates });
    expect(turn).toMatchObject({
      bates,
      sid: 'cccc',
      agent: 'arborist',
      project: '/home/ana/shop',
      parent: 'cccc-000001',
      question: 'and the wal checkpoint?',
      answer: 'we decided to checkpoint the WAL when idle',
    });
    expect(turn.next_cursor).toBeUndefined();
    expect(cli(['show', bates, '--db', db, '--json']).json().answer_text).toBe(turn.answer);

    const path = await ok(c, 'path', { bates });
    expect(path.turns.map((t: Json) => t.bates)).toEqual(['cccc-000001', bates]);
    const tree = await ok(c, 'tree', { session: 'cccc' });
    // an imported session has no label: its title, agent and project are said as list says them
    expect(tree).toMatchObject({ sid: 'cccc', label: null, title: 'Cart expiry', agent: 'claude' });
    expect(tree.title).toBe((await ok(c, 'list')).sessions.find((x: Json) => x.sid === 'cccc').title);
    expect(tree.tree.map((t: Json) => [t.bates, t.depth])).toEqual([
      ['cccc-000001', 0],
      [bates, 1],
    ]);
    const list = await ok(c, 'list');
    expect(list.sessions.map((s: Json) => s.sid).sort()).toEqual(['aaaa', 'cccc', 'xxxx']);
    expect(list.sessions.find((s: Json) => s.sid === 'xxxx')).toMatchObject({ agent: 'codex', turns: 1 });
    const check = await ok(c, 'check');
    expect(check).toMatchObject({ ok: true, first_broken_seq: null });
    expect(check.head).toBe(cli(['chain-check', '--db', db, '--json']).json().head);

    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['arborist://turn/{bates}']);
    const res = await c.readResource({ uri: `arborist://turn/${bates}` });
    expect((res.contents[0] as { text: string }).text).toMatch(/we decided to checkpoint the WAL when idle/);
    await expect(c.readResource({ uri: 'arborist://turn/zzzz-000009' })).rejects.toThrow(
      /no turn zzzz-000009/,
    );
  });

  it('answers every bad argument with one tool error line and goes on serving', async () => {
    const c = await connect(shard());
    const good = async () => expect((await ok(c, 'find', { query: 'lifetime' })).hits).toHaveLength(3);
    const first = await ok(c, 'find', { query: 'lifetime', limit: 1 });
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['show', { bates: 'zzzz-000001' }, /no turn zzzz-000001/],
      ['show', { bates: '' }, /bates is empty/],
      [
        'show',
        { bates: 'cccc' },
        /'cccc' is a session, not a turn: give a turn's Bates id \(tree lists them\)/,
      ],
      [
        'show',
        { bates: 'nonsense' },
        /^'nonsense' is not a Bates id \(<sid>-<6 digits>, e.g. abcd1234-000042/,
      ],
      [
        'tree',
        { session: 'cccc-000001' },
        /^'cccc-000001' is a turn's Bates id, not a session: its session is cccc$/,
      ],
      ['path', { bates: 'zzzz-000001' }, /no turn zzzz-000001/],
      ['tree', { session: 'nope' }, /no session 'nope'/],
      ['find', { query: '' }, /query is empty/],
      ['find', { query: '   ' }, /query is empty/],
      ['find', { query: 'x '.repeat(50 * 1024) }, /query is too long/],
      ['find', { query: 'lifetime', after: 'soon' }, /after: wants a date like 2026-11-01, not 'soon'/],
      ['find', { query: 'lifetime', agent: 'gemini' }, /no agent 'gemini' in this shard/],
      ['find', { query: 'lifetime', project: '/home/ana' }, /project: '\/home\/ana' cannot be used/],
      ['find', { query: 'lifetime', limit: 0 }, /limit/],
      ['find', { query: 'lifetime', cursor: 'garbage!' }, /cursor is not one this server gave/],
      ['find', { query: 'lifetime', cursor: 'eyJ0IjoiZmluZCJ9' }, /cursor is not one this server gave/],
      ['find', { query: 'borrow', cursor: first.next_cursor }, /cursor was given for other arguments/],
      ['list', { cursor: first.next_cursor }, /cursor is from the find tool, not list/],
      ['find', { query: 7 }, /expected string/],
    ];
    for (const [tool, args, want] of bad) {
      expect(await fails(c, tool, args), `${tool} ${JSON.stringify(args).slice(0, 80)}`).toMatch(want);
      await good();
    }
    // FTS5 syntax is searched as words (as `arborist find` does), never handed to FTS5 as a query.
    for (const query of ['"a', 'NEAR(', 'NEAR(a b)', 'a AND OR', '*', '(']) {
      const r = await call(c, 'find', { query });
      expect(r.error, query).toBeUndefined();
      await good();
    }
    expect((await ok(c, 'find', { query: 'NEAR(' })).hits.map((h: Json) => h.question)).toEqual([
      'codex question',
    ]);
  });

  it('sends no escape or control sequence of stored text', async () => {
    const c = await connect(shard());
    const texts = [
      (await call(c, 'find', { query: 'arborist' })).text,
      (await call(c, 'show', { bates: 'aaaa-000001' })).text,
      (await call(c, 'path', { bates: 'aaaa-000001' })).text,
      (await call(c, 'tree', { session: 'aaaa' })).text,
      (await call(c, 'list')).text,
    ];
    for (const t of texts) {
      expect(t).toMatch(/red/);
      // JSON escapes C0 itself; the server must also leave no ESC-free remnant (C1, bidi) and no escaped ESC.
      expect(t).not.toMatch(/\\u001b|[\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\\u009b|\\u202e|pwned/);
    }
    const turn = await ok(c, 'show', { bates: 'aaaa-000001' });
    expect(turn.answer).toBe('asked here red   evil');
  });

  it('pages a 2 MB answer and a long result list within the byte budget', async () => {
    const db = tempDb();
    const s = Shard.open(db);
    s.createSession({ sid: 'bbbb' });
    // Multi-byte text and characters JSON escapes, so that the budget is kept in bytes, not characters.
    const unit = 'déjà vu "quoted" \\ 日本語 line\n';
    const answer = unit.repeat(Math.ceil((2 * 1024 * 1024) / unit.length));
    s.addTurn({ session: 'bbbb', question: 'the big one', answer_text: answer });
    for (let i = 0; i < 120; i++)
      s.addTurn({ session: 'bbbb', question: `needle ${i} ${'q'.repeat(400)}`, answer_text: 'x' });
    s.close();
    const c = await connect(db);

    let got = '';
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await call(c, 'show', { bates: 'bbbb-000001', ...(cursor ? { cursor } : {}) });
      expect(r.error).toBeUndefined();
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(BUDGET_BYTES);
      if (pages === 0) expect(r.json.question).toBe('the big one');
      expect(r.json.answer_range[0]).toBe(got.length);
      got += r.json.answer;
      cursor = r.json.next_cursor;
      pages++;
    } while (cursor !== undefined);
    expect(got).toBe(answer);
    expect(pages).toBeGreaterThan(80);

    const seen: string[] = [];
    cursor = undefined;
    do {
      const r = await call(c, 'find', { query: 'needle', limit: 50, ...(cursor ? { cursor } : {}) });
      expect(r.error).toBeUndefined();
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(BUDGET_BYTES);
      seen.push(...r.json.hits.map((h: Json) => h.bates));
      cursor = r.json.next_cursor;
    } while (cursor !== undefined);
    expect(new Set(seen).size).toBe(120);

    const tree: string[] = [];
    cursor = undefined;
    do {
      const r = await ok(c, 'tree', { session: 'bbbb', limit: 500, ...(cursor ? { cursor } : {}) });
      tree.push(...r.tree.map((t: Json) => t.bates));
      cursor = r.next_cursor;
    } while (cursor !== undefined);
    expect(tree).toHaveLength(121);
  });

  it('pages a turn with thousands of cited titles within the budget (it spun for ever on the first page)', async () => {
    const db = tempDb();
    const s = Shard.open(db);
    s.createSession({ sid: 'tttt' });
    // An imported export carries its titles as they were: nothing bounds how many a turn has.
    const titles = Array.from({ length: 3000 }, (_, i) => `source title ${i} ${'t'.repeat(20)}`);
    const answer = 'a'.repeat(60_000);
    s.addTurn({ session: 'tttt', question: 'q', answer_text: answer, cited_titles: titles });
    s.close();
    const c = await connect(db);
    let got = '';
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await call(c, 'show', { bates: 'tttt-000001', ...(cursor ? { cursor } : {}) });
      expect(r.error).toBeUndefined();
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(BUDGET_BYTES);
      expect(r.json.cited_total).toBe(3000);
      expect(r.json.cited.length).toBeGreaterThan(10);
      expect(r.json.cited[0]).toBe(titles[0]);
      got += r.json.answer ?? '';
      cursor = r.json.next_cursor;
      pages++;
    } while (cursor !== undefined && pages < 20);
    expect(got).toBe(answer);
  }, 20_000);

  it('runs from its own bundle; the whole CLI serves the same and does not load the SDK for other commands', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const main = join(root, 'dist/bundle/main.js');
    const mainText = readFileSync(main, 'utf8');
    expect(mainText).not.toMatch(/from "(@modelcontextprotocol|zod)/);
    expect(mainText).toMatch(/import\("@modelcontextprotocol\/sdk\/server\/mcp\.js"\)/);
    expect(readFileSync(BIN, 'utf8')).toContain("mcp: 'mcp.js'");
    // mcp.js is the launcher (node: builtins only): the server is mcp-body.cjs, run through V8's code cache.
    const launcher = readFileSync(join(root, 'dist/bundle/mcp.js'), 'utf8');
    expect(launcher).toContain('mcp-body.cjs');
    expect([...launcher.matchAll(/from "([^"]+)"/g)].every((m) => m[1].startsWith('node:'))).toBe(true);
    const body = readFileSync(join(root, 'dist/bundle/mcp-body.cjs'), 'utf8');
    // (one comment of the SDK's says `import()`, in backquotes)
    expect(body).not.toMatch(/(?<!`)\bimport\(/);
    expect(body).not.toContain('import.meta');
    const cacheHome = tempDir();
    const cached = await connect(shard(), BIN, { ARBORIST_CODE_CACHE: '', XDG_CACHE_HOME: cacheHome });
    await ok(cached, 'list');
    // The cache is written 1.5 s after start (code-cache.ts); the next server compiles nothing and serves the same.
    await new Promise((r) => setTimeout(r, 2000));
    await cached.close();
    expect(readdirSync(join(cacheHome, 'arborist')).filter((f) => f.startsWith('mcp-body-'))).toHaveLength(1);
    const again = await connect(shard(), BIN, { ARBORIST_CODE_CACHE: '', XDG_CACHE_HOME: cacheHome });
    expect((await ok(again, 'find', { query: 'lifetime' })).hits).toHaveLength(3);
    const viaMain = await connect(shard(), main);
    expect((await ok(viaMain, 'list')).sessions).toHaveLength(3);
    for (const args of [
      ['mcp', '--help'],
      ['mcp', 'extra'],
      ['mcp', '--bogus'],
      ['mcp', '--db='],
    ]) {
      const a = cli(args);
      const b = spawnSync(process.execPath, [main, ...args], {
        encoding: 'utf8',
        input: '',
        env: { PATH: process.env.PATH },
      });
      expect({ args, code: a.code, out: a.stdout, err: a.stderr }).toEqual({
        args,
        code: b.status,
        out: b.stdout,
        err: b.stderr,
      });
    }
  });

  it('takes no argument but --db, and says how it is used', () => {
    const help = cli(['mcp', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: arborist mcp \[--db PATH\]/);
    const extra = cli(['mcp', 'extra', '--db', tempDb()]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/usage: arborist mcp/);
    expect(cli(['--help']).stdout).toMatch(/\n {2}mcp {10}/);
  });
});
