import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashes } from '../../src/store/index.js';
import { forgedTurn, forgeHost, honestTurn, plant, scene } from './forge.js';
import {
  archive,
  ask,
  bareRemote,
  expect0,
  gitIn,
  host,
  hostIdOf,
  readFileSync,
  run,
  stateOf,
  sync,
  tamper,
  tempDir,
  turnsOf,
  writeFileSync,
} from './helpers.js';

/** The attacker's review, continued (attack.test.ts): a host's branch forged whole, turn by turn. */

describe('what no check can catch, and who then notices', () => {
  it("a remote writer appends a linked event and a turn to a host's branch: other hosts take it (nothing is signed); that host's next sync and check --remote say so", () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const h = ask(a, 'honest');
    sync(a);
    sync(b);
    const id = hostIdOf(a);
    const honest = honestTurn(remote, id, h.sid);
    const t = forgedTurn(honest, 'zzappended01', 'appended by the remote');
    tamper(remote, id, (dir) => {
      plant(dir, 'zzappended01', t);
      const f = join(dir, 'events', '000000.txt');
      const text = readFileSync(f, 'utf8');
      const last = text.trimEnd().split('\n').pop()!.split(' ');
      const body = Buffer.from(
        hashes.canon({ data: { bates: t.bates, node_hash: t.node_hash }, kind: 'node.add' }),
      );
      const hash = hashes.eventHash(Buffer.from(last[1], 'hex'), body).toString('hex');
      const seq = Number(last[0]) + 1;
      writeFileSync(f, `${text}${seq} ${hash} ${body.toString('utf8')}\n`);
      const head = JSON.parse(readFileSync(join(dir, 'HEAD.json'), 'utf8'));
      writeFileSync(join(dir, 'HEAD.json'), `${hashes.canon({ ...head, events: { seq, hash } })}\n`);
    });
    expect(sync(b).remotes[0].pulled.turns).toBe(1);
    expect(turnsOf(b).get(t.bates)).toBe(t.node_hash);
    const s = run(a, ['sync']);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(
      /does not hold the head this host pushed .* or someone else pushed to this host's branch/,
    );
    const c = run(a, ['check', '--remote', 'origin']);
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/or someone else pushed to this host's branch/);
  });
});

describe('a forged host', () => {
  it('a turn whose fields are not of a turn (a number for a question, null for a time) is refused, named', () => {
    const { remote, a, b, honest } = scene();
    const odd = (sid: string, field: string, v: unknown) => ({
      sid,
      bytes: hashes.canon({ ...honest, bates: `${sid}-000001`, parent_bates: null, [field]: v }),
    });
    const cases: [string, unknown, string][] = [
      ['question', 5, 'is not a turn (question must be text)'],
      ['created_at', null, 'is not a turn (created_at or parent_bates is not text)'],
      ['cited_titles', [1], 'is not a turn (cited title must be text)'],
      ['n_cited_sources', -1.5, 'is not a turn (n_cited_sources must be >= 0)'],
      ['audit', null, 'is not a turn as the store keeps one'],
      ['audit', '\u001b[2J', "is not a turn (audit tag '' is not a short lowercase word)"],
    ];
    for (const [i, [field, v]] of cases.entries())
      forgeHost(remote, `forged${i}`, [odd(`zzodd00000${i}`, field, v)]);
    const mine = ask(b, 'b goes on');
    // Before: the writer's own check threw ('question must be text', exit 2, no host named) and stopped the whole
    // sync, so one forged branch kept every host's turns out and this host's own from being pushed.
    const r = run(b, ['sync', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const rep = r.json().remotes[0];
    const forged = rep.pulled.hosts.filter((h: { host: string }) => h.host.startsWith('forged'));
    expect(forged.map((h: { status: string; problems: string[] }) => [h.status, h.problems])).toEqual(
      cases.map(([, , why], i) => [
        'refused',
        [`host forged${i}'s turn zzodd00000${i}-000001 ${why}; nothing of forged${i} imported`],
      ]),
    );
    expect(rep.pulled.hosts.find((h: { host: string }) => h.host === hostIdOf(a)).status).toBe('ok');
    expect(rep.pushed.turns).toBe(1);
    expect(turnsOf(b).has(mine.bates)).toBe(true);
    expect([...turnsOf(b).keys()].filter((k) => k.startsWith('zzodd'))).toEqual([]);
    expect0(run(b, ['check']));
  });
});

describe('a forged host: its session files', () => {
  it('a label the store would not take, or a megabyte time, refuses that host, named; the rest goes on', () => {
    const { remote, b, honest } = scene();
    const turn = (sid: string, session: Record<string, unknown>) => ({
      sid,
      session,
      bytes: hashes.canon({ ...honest, bates: `${sid}-000001`, parent_bates: null }),
    });
    const bad: Record<string, unknown>[] = [
      { label: 'x'.repeat(500) },
      { label: '   ' },
      { created_at: 'y'.repeat(3_000_000) },
    ];
    for (const [i, c] of bad.entries()) forgeHost(remote, `forged${i}`, [turn(`zzses00000${i}`, c)]);
    // An origin with escapes in its text is taken, and shown without them.
    forgeHost(remote, 'forged9', [
      turn('zzses000009', {
        origin: { source: 'claude', source_session: 'q', info: { cwd: '/x', project: '\u001b]0;t\u0007p' } },
      }),
    ]);
    ask(b, 'b goes on');
    // Before: the writer's createSession threw ('label is longer than 200 characters', exit 2) and stopped the sync.
    const r = run(b, ['sync', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const hosts = r.json().remotes[0].pulled.hosts as { host: string; status: string; problems: string[] }[];
    expect(
      hosts.filter((x) => x.host.startsWith('forged')).map((x) => [x.host, x.status, x.problems]),
    ).toEqual([
      ...bad.map((_, i) => [
        `forged${i}`,
        'refused',
        [`host forged${i}'s sessions/zz/zzses00000${i}/session.json is not a session file`],
      ]),
      ['forged9', 'ok', []],
    ]);
    expect(r.json().remotes[0].pushed.turns).toBe(1);
    expect(expect0(run(b, ['list'])).stdout).not.toMatch(/[\u001b\u0007]/);
    expect0(run(b, ['check']));
  });
});

describe('a forged host: its tree of turns', () => {
  it('a turn that is its own parent is left out with a problem; the sync goes on', () => {
    const { remote, b, h, honest } = scene();
    const self = 'zzcycle00001-000001';
    forgeHost(remote, 'forged', [
      { sid: 'zzcycle00001', bytes: hashes.canon({ ...honest, bates: self, parent_bates: self }) },
    ]);
    const mine = ask(b, 'b goes on');
    // Before: the writer cut the cycle and made the turn a top turn, whose hash then differed from the one it came
    // with: a throw (exit 2) that stopped every host's import and this host's push, at every sync.
    const r = expect0(run(b, ['sync', '--json'])).json().remotes[0];
    expect(r.problems).toContain('its parents form a cycle; kept as a top turn');
    expect(r.pushed.turns).toBe(1);
    expect(turnsOf(b).has(self)).toBe(false);
    expect(turnsOf(b).has(h.bates) && turnsOf(b).has(mine.bates)).toBe(true);
    expect0(run(b, ['check']));
  });
});

describe('git as sync runs it', () => {
  it('holds: an ext:: URL runs no command (refused at add; tests/sync/remote-url.test.ts for one put in the mirror by hand); one line, exit 2, nothing changed', () => {
    const a = host('a');
    ask(a, 'one');
    const marker = join(tempDir(), 'ran');
    const before = stateOf(a);
    const r = run(a, ['sync', 'remote', 'add', 'evil', `ext::sh -c touch% ${marker}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^arborist: remote URL 'ext::sh -c touch% .*' runs a command \(git's ext:: transport\);/,
    );
    expect(expect0(run(a, ['sync', 'remote', 'list'])).stdout).toBe('no sync remotes\n');
    expect(existsSync(marker)).toBe(false);
    expect(stateOf(a)).toBe(before);
  });
});

describe('what this host pushes', () => {
  it("holds: a pulled session archived here and restored is never pushed as this host's own", () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const t = ask(a, 'from a');
    sync(a);
    sync(b);
    archive(b, t.sid);
    sync(b);
    archive(b, t.sid, true);
    expect(sync(b).remotes[0].pushed.turns).toBe(0);
    const files = gitIn(remote, 'ls-tree', '-r', '--name-only', `refs/heads/hosts/${hostIdOf(b)}`);
    expect(files.split('\n').filter((f) => f.startsWith('sessions/'))).toEqual([]);
    expect(expect0(run(b, ['list', '--json'])).json()[0].host).toBe(hostIdOf(a));
  });
});

describe('a forged host: odd seqs', () => {
  it('a turn path whose seq is 0 or past a safe integer is no turn: ignored, and the sync goes on', () => {
    const { remote, b, h, honest } = scene();
    const big = 'zzbig0000001-100000000000000000000';
    const zero = 'zzbig0000002-000000';
    forgeHost(remote, 'forgedseq', [
      { sid: 'zzbig0000001', bytes: hashes.canon({ ...honest, bates: big, parent_bates: null }) },
      { sid: 'zzbig0000002', bytes: hashes.canon({ ...honest, bates: zero, parent_bates: null }) },
    ]);
    const mine = ask(b, 'b goes on');
    // Before: 100000000000000000000 read as a seq, the writer threw ('seq ... is already taken', exit 2) at every sync.
    const r = expect0(run(b, ['sync', '--json'])).json().remotes[0];
    expect(r.pushed.turns).toBe(1);
    expect(turnsOf(b).has(big) || turnsOf(b).has(zero)).toBe(false);
    expect(turnsOf(b).has(mine.bates) && turnsOf(b).has(h.bates)).toBe(true);
    expect0(run(b, ['check']));
  });
});

describe('a forged host: a turn below its session', () => {
  it('a turn added below the turns of its session already here refuses its host, named; the sync goes on', () => {
    const { remote, b, honest } = scene();
    forgeHost(remote, 'forgedlow', [
      {
        sid: 'zzlow0000001',
        bytes: hashes.canon({ ...honest, bates: 'zzlow0000001-000003', parent_bates: null }),
      },
    ]);
    ask(b, 'b');
    expect0(run(b, ['sync']));
    const t = { bytes: hashes.canon({ ...honest, bates: 'zzlow0000001-000001', parent_bates: null }) };
    const node_hash = hashes.sha256(Buffer.concat([hashes.LEAF, Buffer.from(t.bytes)])).toString('hex');
    tamper(remote, 'forgedlow', (dir) => {
      plant(dir, 'zzlow0000001', t);
      const f = join(dir, 'events', '000000.txt');
      const text = readFileSync(f, 'utf8');
      const last = text.trimEnd().split('\n').pop()!.split(' ');
      const body = Buffer.from(
        hashes.canon({ data: { bates: 'zzlow0000001-000001', node_hash }, kind: 'node.add' }),
      );
      const hash = hashes.eventHash(Buffer.from(last[1], 'hex'), body).toString('hex');
      const seq = Number(last[0]) + 1;
      writeFileSync(f, `${text}${seq} ${hash} ${body.toString('utf8')}\n`);
      const head = JSON.parse(readFileSync(join(dir, 'HEAD.json'), 'utf8'));
      writeFileSync(join(dir, 'HEAD.json'), `${hashes.canon({ ...head, events: { seq, hash } })}\n`);
    });
    const mine = ask(b, 'b2');
    // Before: the bulk path threw ('turn 1: seq 1 is already taken', exit 2) and stopped every sync there.
    const r = run(b, ['sync', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const rep = r.json().remotes[0];
    expect(rep.pulled.hosts.find((x: { host: string }) => x.host === 'forgedlow').problems).toEqual([
      "host forgedlow's turn zzlow0000001-000001 comes below its session's turns already here; nothing of forgedlow imported",
    ]);
    expect(rep.pushed.turns).toBe(1);
    expect(turnsOf(b).has(mine.bates)).toBe(true);
    expect0(run(b, ['check']));
  });
});
