import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SOURCE_KINDS, SOURCES, sourcesMarkdown } from '../../src/import/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const IMPORT_DOC = fileURLToPath(new URL('../../docs/import.md', import.meta.url));
const FIX = fileURLToPath(new URL('./fixtures/', import.meta.url));
const BEGIN = /<!-- sources:begin[^\n]*-->\n/;
const END = '<!-- sources:end -->';

/** A home with Claude Code's and OpenClaw's histories where they keep them, and an empty shard beside it. */
function home(): { env: NodeJS.ProcessEnv; db: string; claude: string } {
  const dir = tempDir('arb-sources-');
  const claude = join(dir, '.claude/projects/-work-demo');
  mkdirSync(claude, { recursive: true });
  cpSync(join(FIX, 'corpus/claude-code/session_b.jsonl'), join(claude, 'session_b.jsonl'));
  cpSync(join(FIX, 'openclaw/home'), join(dir, '.openclaw'), { recursive: true });
  return { env: { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') }, db: join(dir, 'sessions.db'), claude };
}

describe('the registry of sources', () => {
  it.each([
    ['README.md', README],
    ['docs/import.md', IMPORT_DOC],
  ])('the table of sources in %s is generated from it (and has not drifted)', (name, file) => {
    const doc = readFileSync(file, 'utf8');
    const begin = BEGIN.exec(doc);
    expect(begin, `${name} has lost its sources:begin marker`).not.toBeNull();
    const at = begin!.index + begin![0].length;
    const want = `${doc.slice(0, at)}${sourcesMarkdown()}\n${doc.slice(doc.indexOf(END))}`;
    if (process.env.UPDATE_SOURCES_DOC) writeFileSync(file, want);
    expect(
      readFileSync(file, 'utf8'),
      `${name} drifted from src/import/sources.ts: run UPDATE_SOURCES_DOC=1 npx vitest run tests/import/sources.test.ts`,
    ).toBe(want);
  });

  it('`import --help` lists every source with its name and where it reads', () => {
    const r = cli(['import', '--help']);
    for (const k of SOURCE_KINDS) expect(r.stdout).toMatch(new RegExp(`^  ${k} +${SOURCES[k].name} `, 'm'));
    expect(SOURCES.claude.name).toBe('Claude Code');
  });

  it('`arborist import` with no kind imports every history found, one summary a source and the total', () => {
    const h = home();
    const r = cli(['import', '--db', h.db, '--json'], { env: h.env });
    expect([0, 1]).toContain(r.code); // the OpenClaw fixture holds records it must skip
    const doc = r.json();
    expect(doc.sources.map((s: { kind: string }) => s.kind)).toEqual(['claude', 'openclaw']);
    expect(doc.sources[0]).toMatchObject({
      name: 'Claude Code',
      paths: [join(h.env.HOME!, '.claude/projects')],
    });
    const added = doc.sources.reduce((n: number, s: { turns_added: number }) => n + s.turns_added, 0);
    expect(added).toBeGreaterThan(0);
    expect(doc.total.turns_added).toBe(added);
    // Idempotent: a second run finds everything already there.
    const again = cli(['import', '--db', h.db, '--json'], { env: h.env }).json();
    expect(again.total.turns_added).toBe(0);
    expect(again.total.turns_skipped).toBe(added);
  });

  it('--progress-json says how far each source is, one JSON line at a time on stderr, ending with its totals', () => {
    const h = home();
    const r = cli(['import', '--db', h.db, '--json', '--progress-json'], { env: h.env });
    expect([0, 1]).toContain(r.code);
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const last = (source: string) => lines.filter((l) => l.source === source).at(-1);
    const doc = r.json();
    for (const s of doc.sources)
      expect(last(s.name)).toEqual({
        source: s.name,
        files_done: s.files,
        files: s.files,
        bytes_done: last(s.name).bytes,
        bytes: last(s.name).bytes,
        turns: s.turns_added,
      });
    expect(lines[0]).toMatchObject({ source: 'Claude Code', files_done: 0, turns: 0 });
    // One source named: the same lines, for it alone.
    const one = cli([
      'import',
      'openclaw',
      join(h.env.HOME!, '.openclaw'),
      '--db',
      `${h.db}-2`,
      '--json',
      '--progress-json',
    ]);
    const mine = one.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(mine.at(-1)).toMatchObject({ source: 'OpenClaw', files_done: mine.at(-1).files });
  });

  it('a default location that is missing adds nothing: `import claude` reads ~/.claude/projects alone', () => {
    const h = home();
    const r = cli(['import', 'claude', '--db', h.db, '--json'], { env: h.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().turns_added).toBeGreaterThan(0);
  });

  it('says so, and exits 0, when nothing is found; a kind whose defaults are all missing is one line, exit 2', () => {
    const dir = tempDir('arb-sources-none-');
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') };
    const r = cli(['import', '--db', join(dir, 's.db')], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no history of a known agent on this machine');
    const one = cli(['import', 'claude', '--db', join(dir, 's.db')], { env });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/^arborist: no claude history at .*\(give a PATH\)\n$/);
  });

  it('every session records its agent and project: `list --json`, `list` and `show` say them', () => {
    const h = home();
    cli(['import', '--db', h.db], { env: h.env });
    cli(['ask', 'asked here', '--answer', 'answered here', '--db', h.db]);
    const list: { sid: string; agent: string; project: string | null }[] = cli([
      'list',
      '--db',
      h.db,
      '--json',
    ]).json();
    const by = (agent: string) => list.filter((s) => s.agent === agent);
    expect(by('claude').map((s) => s.project)).toEqual(['/tmp']); // the cwd session_b.jsonl recorded
    expect(by('openclaw').length).toBeGreaterThan(0);
    expect(by('openclaw').some((s) => s.project === '/home/ana/shop')).toBe(true);
    expect(by('arborist')).toHaveLength(1);
    expect(by('arborist')[0].project).toBeNull();
    expect(cli(['list', '--db', h.db]).stdout).toMatch(/^\w{8} +claude +\/tmp /m);
    const shown = cli(['show', `${by('claude')[0].sid}-000001`, '--db', h.db]).stdout;
    expect(shown).toMatch(/^agent +claude$/m);
    expect(shown).toMatch(/^project +\/tmp$/m);
    const json = cli(['show', `${by('arborist')[0].sid}-000001`, '--db', h.db, '--json']).json();
    expect(json).toMatchObject({ agent: 'arborist', project: null });
  });
});
