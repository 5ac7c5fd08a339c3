import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ask, bareRemote, expect0, host, hostIdOf, run, sync } from './helpers.js';

const CLAUDE = fileURLToPath(
  new URL('../import/fixtures/corpus/claude-code/representative_messages.jsonl', import.meta.url),
);

describe('a pulled session reads as the agent it came from, on the host it came from', () => {
  it('list, list --json and find show the source agent (not "sync") and the host', () => {
    const remote = bareRemote();
    const laptop = host('laptop', remote);
    const server = host('server', remote);
    expect0(run(laptop, ['import', 'claude', CLAUDE]));
    ask(laptop, 'asked in arborist on the laptop');
    sync(laptop);
    ask(server, 'asked on the server');
    sync(server);
    const id = hostIdOf(laptop);
    const list = expect0(run(server, ['list', '--json'])).json() as {
      sid: string;
      agent: string;
      host: string | null;
    }[];
    expect(
      list
        .filter((s) => s.host === id)
        .map((s) => s.agent)
        .sort(),
    ).toEqual(['arborist', 'claude']);
    expect(list.filter((s) => s.host === null).map((s) => s.agent)).toEqual(['arborist']);
    const table = expect0(run(server, ['list'])).stdout;
    expect(table.split('\n')[0]).toMatch(/AGENT +HOST +PROJECT/);
    expect(table).toContain(id);
    expect(table).not.toMatch(/\bsync\b/);
    // find's agent: filter takes the source agent, and `arborist` means asked in arborist on any host.
    const claude = expect0(run(server, ['find', 'agent:claude', '--json'])).json() as { agent: string }[];
    expect(claude.length).toBeGreaterThan(0);
    expect(new Set(claude.map((h) => h.agent))).toEqual(new Set(['claude']));
    const here = expect0(run(server, ['find', 'agent:arborist asked', '--json'])).json() as {
      question: string;
    }[];
    expect(here.map((h) => h.question).sort()).toEqual([
      'asked in arborist on the laptop',
      'asked on the server',
    ]);
  });

  it('a shard that never synced keeps its list as before (no HOST column)', () => {
    const lone = host('lone');
    ask(lone, 'alone');
    expect(expect0(run(lone, ['list'])).stdout.split('\n')[0]).not.toContain('HOST');
  });
});

describe('status --sync', () => {
  it('says never synced before the first sync, and the last sync’s age after it', () => {
    const remote = bareRemote();
    const h = host('h', remote);
    ask(h, 'one turn');
    expect(run(h, ['status', '--short', '--sync']).stdout).toMatch(/ · sync ✗\n$/);
    expect(run(h, ['status', '--sync']).stdout).toMatch(/ · never synced\n$/);
    sync(h);
    expect(run(h, ['status', '--short', '--sync']).stdout).toMatch(/ · sync now\n$/);
    expect(run(h, ['status', '--sync']).stdout).toMatch(/ · synced now\n$/);
  });
});
