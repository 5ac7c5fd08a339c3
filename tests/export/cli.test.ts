import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripControls } from '../../src/text/sanitize.js';
import { BIN, cli } from '../support/cli.js';
import { contentHash } from '../support/recompute.js';
import { tempDir } from '../support/tmp.js';
import { buildFixture, type Fixture, HOSTILE_A, HOSTILE_LABEL, HOSTILE_Q, UNSAFE } from './fixture.js';

/** The real binary (run `npm run build` first) on a real shard. */

let shared: string;
let fx: Fixture;
let head: string;
// biome-ignore lint/suspicious/noExplicitAny: `show --json` documents
const shown = new Map<string, any>();

beforeAll(() => {
  // A folder of its own (not tempDir: that is removed after each test, and these share one shard).
  shared = mkdtempSync(join(tmpdir(), 'arborist-export-'));
  fx = buildFixture(join(shared, 'sessions.db'));
  head = cli(['chain-check', '--db', fx.db, '--json']).json().head;
  for (const b of Object.values(fx.ids)) shown.set(b, cli(['show', b, '--db', fx.db, '--json']).json());
});

afterAll(() => rmSync(shared, { recursive: true, force: true }));

const run = (...args: string[]) => cli(['export', ...args, '--db', fx.db]);
// biome-ignore lint/suspicious/noExplicitAny: the export document
const exportJson = (...args: string[]): any => {
  const r = run(...args, '--format', 'json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};
const batesOf = (doc: { turns: { bates: string }[] }) => doc.turns.map((t) => t.bates);

/** The fenced blocks of a markdown text as CommonMark reads them: a fence closes only on a run at least as long. */
function fencedBlocks(md: string): string[] {
  const lines = md.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})text$/.exec(lines[i]);
    if (!open) continue;
    const n = open[1].length;
    const body: string[] = [];
    for (i++; i < lines.length && !new RegExp(`^ {0,3}\`{${n},}\\s*$`).test(lines[i]); i++)
      body.push(lines[i]);
    out.push(body.join('\n'));
  }
  return out;
}

describe('arborist export: selection', () => {
  it('BATES is the path from the root, across sessions', () => {
    const { a1, a2, a4, b1, b2 } = fx.ids;
    expect(batesOf(exportJson(a4))).toEqual([a1, a2, a4]);
    const doc = exportJson(b2);
    expect(batesOf(doc)).toEqual([a1, a2, b1, b2]);
    expect(doc.selection).toEqual({ kind: 'path', id: b2 });
    expect(doc.sessions.map((s: { sid: string }) => s.sid)).toEqual(['aaaa', 'bbbb']);
  });

  it('--subtree is the turn and everything under it, in any session, children by (sid, seq)', () => {
    const { a1, a2, a3, a4, b1, b2 } = fx.ids;
    expect(batesOf(exportJson(a2, '--subtree'))).toEqual([a2, a4, b1, b2]);
    expect(batesOf(exportJson(a1, '--subtree'))).toEqual([a1, a2, a4, b1, b2, a3]);
    expect(batesOf(exportJson(a4, '--subtree'))).toEqual([a4]);
    expect(exportJson(a2, '--subtree').selection).toEqual({ kind: 'subtree', id: a2 });
  });

  it('SID (or a label) is the whole session, with its ancestors in other sessions as context', () => {
    const { a1, a2, a3, a4, b1, b2 } = fx.ids;
    // aaaa's turns only: b1 (a child in another session) belongs to bbbb.
    expect(batesOf(exportJson('aaaa'))).toEqual([a1, a2, a4, a3]);
    const doc = exportJson('bbbb');
    expect(batesOf(doc)).toEqual([a1, a2, b1, b2]);
    expect(doc.sessions.map((s: { sid: string }) => s.sid)).toEqual(['aaaa', 'bbbb']);
    expect(batesOf(exportJson('alpha'))).toEqual([a1, a2, a4, a3]);
    const md = run('bbbb').stdout;
    // bbbb's own two turns; a1 and a2 are there for the path (the header counted them as the session's).
    expect(md).toContain('- turns: 2 (and 2 of context, from other sessions)\n');
    expect(run('aaaa').stdout).toContain('- turns: 4\n');
    expect(md).toContain(`### \`${a1}\` (context)`);
    expect(md).toContain(`### \`${b1}\`\n`);
    expect(md).toContain('### Session `aaaa` (context)');
    const html = run('bbbb', '--format', 'html').stdout;
    expect(html.match(/<article id="t\d+" class="context"/g)).toHaveLength(2);
  });

  it('every turn is listed after its parent', () => {
    for (const id of ['aaaa', 'bbbb', fx.ids.a1]) {
      const doc = exportJson(id, ...(id === fx.ids.a1 ? ['--subtree'] : []));
      const at = new Map(doc.turns.map((t: { bates: string }, i: number) => [t.bates, i]));
      for (const [i, t] of doc.turns.entries())
        if (at.has(t.parent_bates)) expect(at.get(t.parent_bates)).toBeLessThan(i);
    }
  });
});

describe('arborist export: json', () => {
  it('carries every field each node hash covers; an independent recomputation checks every turn', () => {
    const doc = exportJson(fx.ids.a1, '--subtree');
    expect(doc.format).toBe('arborist-export');
    expect(doc.version).toBe(1);
    expect(doc.chain_head).toBe(head);
    expect(Date.parse(doc.exported_at)).not.toBeNaN();
    expect(doc.sessions).toEqual(
      cli(['list', '--db', fx.db, '--json'])
        .json()
        // the export's sessions are the hashed session rows: list's count and origin (agent, project, title, host)
        // are not
        .map(
          ({
            n_nodes: _n,
            agent: _a,
            project: _p,
            title: _t,
            host: _h,
            ...s
          }: {
            n_nodes: number;
            agent: string;
            project: string | null;
            title: string | null;
            host: string | null;
          }) => s,
        ),
    );
    expect(doc.sessions[1].label).toBe(HOSTILE_LABEL);
    expect(doc.turns).toHaveLength(6);
    for (const t of doc.turns) {
      expect(Object.keys(t)).toEqual([
        'bates',
        'sid',
        'seq',
        'parent_bates',
        'question',
        'answer_text',
        'cited_titles',
        'n_cited_sources',
        'audit',
        'cache_key',
        'created_at',
        'source',
        'source_id',
        'node_hash',
        'subtree_hash',
      ]);
      const s = shown.get(t.bates);
      for (const k of Object.keys(t)) expect(t[k], k).toEqual(s[k]);
      // docs/sessions.md's rule, written again in tests/support/recompute.ts, nothing of src/ used.
      const h = contentHash({ ...t, cited_titles_json: JSON.stringify(t.cited_titles) }).toString('hex');
      expect(h).toBe(t.node_hash);
    }
    const b1 = doc.turns.find((t: { bates: string }) => t.bates === fx.ids.b1);
    expect(b1.question).toBe(HOSTILE_Q);
    expect(b1.answer_text).toBe(HOSTILE_A);
    const b2 = doc.turns.find((t: { bates: string }) => t.bates === fx.ids.b2);
    expect([b2.source, b2.source_id, b2.audit]).toEqual(['claude', 'uuid-0001', 'imported']);
  });

  it('holds no raw control, C1 or bidi character: they are \\u escapes, and parse back exactly', () => {
    const r = run(fx.ids.b2, '--format', 'json');
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout).toContain('\\u001b[31m');
    expect(r.stdout).toContain('\\u202e');
    expect(r.stdout).toContain('\\u009b');
    // --json means the same document
    const j = run(fx.ids.b2, '--json');
    expect(JSON.parse(j.stdout).turns).toEqual(JSON.parse(r.stdout).turns);
  });
});

describe('arborist export: markdown', () => {
  it('shows every turn with its fields and the sessions with root and chain head', () => {
    const md = run(fx.ids.a1, '--subtree').stdout;
    expect(md.startsWith(`# arborist export: \`subtree of ${fx.ids.a1}\``)).toBe(true);
    expect(md).toContain(`- chain head: \`${head}\``);
    for (const b of Object.values(fx.ids)) {
      const s = shown.get(b);
      expect(md).toContain(`### \`${b}\``);
      expect(md).toContain(`- node hash: \`${s.node_hash}\``);
      expect(md).toContain(`- subtree hash: \`${s.subtree_hash}\``);
      expect(md).toContain(`- created: \`${s.created_at}\``);
      expect(md).toContain(`- audit: \`${s.audit}\``);
    }
    expect(md).toContain('- source: `claude` `uuid-0001`');
    expect(md).toContain('- cited: `RFC 6962`, `RFC <9162> & co`');
    for (const sid of ['aaaa', 'bbbb']) {
      const root = cli(['list', '--db', fx.db, '--json'])
        .json()
        .find((x: { sid: string }) => x.sid === sid).session_root;
      expect(md).toContain(`- session root: \`${root}\``);
    }
    // The tree view: nested by depth.
    expect(md).toContain(`\n- \`${fx.ids.a1}\` \`What is a Merkle tree?\`\n  - \`${fx.ids.a2}\``);
    expect(md).toContain(`\n    - \`${fx.ids.a4}\` \`Ordered how?\``);
  });

  it('untrusted text cannot break out of its fence, and no control reaches the terminal', () => {
    const md = run(fx.ids.b1).stdout;
    expect(md).not.toMatch(UNSAFE);
    expect(md).not.toContain('\x1b');
    // Read as CommonMark reads fences: the question and the answer come back whole, inside their blocks.
    const blocks = fencedBlocks(md);
    expect(blocks).toContain(stripControls(HOSTILE_Q));
    expect(blocks).toContain(stripControls(HOSTILE_A));
    // No line outside a block is text of the answer (the '# not a heading' line stayed inside).
    expect(md.split('\n').filter((l) => l === '# not a heading')).toHaveLength(1);
    expect(md).toMatch(/\n`{11}text\nline one\n/);
    // The label is a code span, never markup.
    expect(md).toContain('- label: `beta <b>bold</b> "x"`');
  });
});

describe('arborist export: html', () => {
  const ALLOWED = new Set(
    'html head meta title style body header h1 h2 h3 dl dt dd code section table tr th td span nav ul li a p main article div pre'.split(
      ' ',
    ),
  );

  const ATTRIBUTES = new Set([
    'lang',
    'charset',
    'http-equiv',
    'content',
    'name',
    'id',
    'class',
    'style',
    'href',
  ]);

  it('is one self-contained file: a strict CSP, no script, no URL, only known tags, everything escaped', () => {
    const r = run(fx.ids.a1, '--subtree', '--format', 'html');
    expect(r.code).toBe(0);
    const html = r.stdout;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'`,
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/https?:|url\(|@import|\/\//i);
    expect(html).not.toMatch(UNSAFE);
    // Stored text holds no raw '<' any more, so every tag below is one of ours: known names, known attributes.
    for (const m of html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)) {
      expect(ALLOWED, m[1]).toContain(m[1].toLowerCase());
      for (const a of m[2].matchAll(/\s([a-zA-Z-]+)="[^"]*"/g)) expect(ATTRIBUTES, a[1]).toContain(a[1]);
    }
    for (const m of html.matchAll(/ href="([^"]*)"/g)) expect(m[1]).toMatch(/^#t\d+$/);
    // The hostile text is there, as text.
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;double&quot; &#39;single&#39; &amp; amp');
    expect(html).toContain('&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;&lt;style&gt;');
    expect(html).toContain('beta &lt;b&gt;bold&lt;/b&gt; &quot;x&quot;');
    // Every turn: an article and a tree entry, with its hashes.
    expect(html.match(/<article /g)).toHaveLength(6);
    expect(html.match(/<li>/g)).toHaveLength(6);
    for (const b of Object.values(fx.ids)) {
      expect(html).toContain(`<code>${shown.get(b).node_hash}</code>`);
      expect(html).toContain(`<code>${shown.get(b).subtree_hash}</code>`);
    }
    expect(html).toContain(`<code>${head}</code>`);
    // The tree nests: a4 sits two lists deep under a1.
    expect(html).toMatch(
      new RegExp(
        `${fx.ids.a2}</code></a> <span class="q">[^<]*</span><ul>\\n<li><a href="#t\\d+"><code>${fx.ids.a4}`,
      ),
    );
  });
});

describe('arborist export --out', () => {
  it('writes the file 0600, whole, and refuses to overwrite without --force', () => {
    const dir = tempDir();
    const out = join(dir, 'b2.json');
    const r = run(fx.ids.b2, '--format', 'json', '--out', out);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.turns).toEqual(exportJson(fx.ids.b2).turns);
    expect(readdirSync(dir)).toEqual(['b2.json']);

    writeFileSync(out, 'keep me');
    chmodSync(out, 0o644);
    const again = run(fx.ids.b2, '--out', out);
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/exists \(use --force/);
    expect(readFileSync(out, 'utf8')).toBe('keep me');

    const forced = run(fx.ids.b2, '--out', out, '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^# arborist export/);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['b2.json']);
  });

  it('is 0600 whatever the umask', () => {
    const out = join(tempDir(), 'open.md');
    const r = spawnSync(
      'sh',
      [
        '-c',
        'umask 000 && exec "$0" "$@"',
        process.execPath,
        BIN,
        'export',
        'aaaa',
        '--db',
        fx.db,
        '--out',
        out,
      ],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it('an unwritable path is one line, exit 2, and leaves nothing behind', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    for (const out of [join(dir, 'missing', 'x.md'), join(dir, 'file', 'x.md'), dir]) {
      const r = run('aaaa', '--out', out);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^arborist: .*(cannot be written \((ENOENT|ENOTDIR)\)|is a folder)/);
    }
    expect(readdirSync(dir)).toEqual(['file']);
  });
});

describe('arborist export --out never replaces the shard or what is not a file', () => {
  /** A shard of its own (a wrong export would destroy it), and how to tell it is unchanged. */
  const own = () => {
    const dir = tempDir();
    const f = buildFixture(join(dir, 'sessions.db'));
    const state = () => cli(['chain-check', '--db', f.db, '--json']).json().head;
    return { dir, db: f.db, before: state(), state };
  };
  const refused = (r: ReturnType<typeof cli>, what: RegExp, label: string) => {
    expect([r.code, r.stdout], label).toEqual([2, '']);
    expect(r.stderr.trim().split('\n'), label).toHaveLength(1);
    expect(r.stderr, label).toMatch(what);
  };

  it('the shard under any spelling, a link to it, a hard link, its -wal and -shm: exit 2, the shard intact', () => {
    const s = own();
    symlinkSync(s.db, join(s.dir, 'link.json'));
    linkSync(s.db, join(s.dir, 'hard.json'));
    symlinkSync(s.dir, join(s.dir, 'again'));
    const outs = [
      s.db,
      join(s.dir, '.', 'sessions.db'),
      join(s.dir, 'again', 'sessions.db'),
      join(s.dir, 'link.json'),
      join(s.dir, 'hard.json'),
      `${s.db}-wal`,
      `${s.db}-shm`,
    ];
    for (const out of outs) {
      for (const format of ['json', 'md']) {
        const r = cli(['export', 'bbbb', '--format', format, '--db', s.db, '--out', out, '--force']);
        refused(r, /is the shard being read .*an export never replaces it/, `${out} ${format}`);
        expect(s.state(), out).toBe(s.before);
      }
    }
    // the same file as a relative name from the shard's folder
    const rel = cli(['export', 'aaaa', '--db', s.db, '--out', 'sessions.db', '--force'], { cwd: s.dir });
    refused(rel, /is the shard/, 'relative');
    // --db through a link: the real file, and the -wal beside the real file (where SQLite puts it)
    const viaLink = cli(['export', 'aaaa', '--db', join(s.dir, 'link.json'), '--out', s.db, '--force']);
    refused(viaLink, /is the shard/, 'db via link');
    const walOfReal = cli(['export', 'aaaa', '--db', join(s.dir, 'link.json'), '--out', `${s.db}-wal`]);
    refused(walOfReal, /is the shard/, 'wal of the real file');
    expect(s.state()).toBe(s.before);
    expect(cli(['verify', '--db', s.db]).code).toBe(0);
    expect(readdirSync(s.dir).sort()).toEqual(['again', 'hard.json', 'link.json', 'sessions.db']);
    // a plain file, and a link to one, are still replaced with --force
    writeFileSync(join(s.dir, 'plain.md'), 'old');
    symlinkSync(join(s.dir, 'plain.md'), join(s.dir, 'plain-link.md'));
    for (const out of ['plain.md', 'plain-link.md']) {
      const r = cli(['export', 'aaaa', '--db', s.db, '--out', join(s.dir, out), '--force']);
      expect([r.code, r.stderr], out).toEqual([0, '']);
    }
  });

  it('a FIFO, a device, or a link to one is never replaced, even with --force', () => {
    const s = own();
    const fifo = join(s.dir, 'pipe.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    symlinkSync(fifo, join(s.dir, 'to-pipe.json'));
    symlinkSync('/dev/null', join(s.dir, 'to-null.json'));
    const outs = [fifo, join(s.dir, 'to-pipe.json'), join(s.dir, 'to-null.json')];
    // A device node of our own (root only): never /dev/null itself, which a failed fix would replace.
    const dev = join(s.dir, 'null-like');
    if (spawnSync('mknod', [dev, 'c', '1', '3']).status === 0) outs.push(dev);
    for (const out of outs) {
      const before = lstatSync(out);
      const r = cli(['export', 'aaaa', '--format', 'json', '--db', s.db, '--out', out, '--force'], {
        timeoutMs: 20_000,
      });
      refused(r, /is not a regular file .*an export never replaces it/, out);
      const after = lstatSync(out);
      expect([after.ino, after.mode], out).toEqual([before.ino, before.mode]);
    }
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(s.dir).filter((n) => n.includes('.export-'))).toEqual([]);
  });
});

describe('arborist export: errors', () => {
  it('unknown ids and formats, misplaced options: one line on stderr, exit 2', () => {
    const cases: [string[], RegExp][] = [
      [['zzzz-000001'], /no turn zzzz-000001/],
      [['nosuchsession'], /no session 'nosuchsession'/],
      [['aaaa', '--format', 'pdf'], /unknown format 'pdf'/],
      [['aaaa', '--subtree'], /--subtree takes a turn/],
      [['aaaa', '--force'], /--force goes with --out/],
      [['aaaa', '--json', '--format', 'md'], /--json asks for --format json/],
      [[], /usage: arborist export/],
    ];
    for (const [args, msg] of cases) {
      const r = run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(msg);
    }
    expect(run('zzzz-000001').stdout).toBe('');
  });
});
