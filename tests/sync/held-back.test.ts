import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashes, Shard, syncMarks } from '../../src/store/index.js';
import type { CliResult } from '../support/cli.js';
import { forgeHost, honestTurn, plant } from './forge.js';
import {
  archive,
  ask,
  bareRemote,
  expect0,
  gitIn,
  type Host,
  host,
  hostIdOf,
  readFileSync,
  run,
  sync,
  tamper,
  turnsOf,
  writeFileSync,
} from './helpers.js';

/**
 * The attacker's review of held-back sessions (docs/sync.md, "Held back, not refused"): a remote writer's branch
 * that pushes a session held here as another's has only that session held back, the rest imported, and its head
 * not recorded. Does anything the whole-host refusal kept out now come in, or anything imported go unwatched?
 */

/** A turn's canonical bytes: an honest turn's fields under another Bates id, parent and question. */
function turnBytes(honest: Record<string, unknown>, bates: string, parent: string | null, question: string) {
  return hashes.nodeContentJson({ ...honest, bates, parent_bates: parent, question } as never);
}

function nodeHashOf(bytes: string): string {
  return hashes.sha256(Buffer.concat([hashes.LEAF, Buffer.from(bytes, 'utf8')])).toString('hex');
}

/** Turns appended to a host's branch, each claimed by a `node.add` linked on from its head, as a remote writer can. */
function append(remote: string, id: string, turns: { sid: string; bytes: string }[]): void {
  tamper(remote, id, (dir) => {
    const f = join(dir, 'events', '000000.txt');
    let text = readFileSync(f, 'utf8');
    const last = text.trimEnd().split('\n').pop()!.split(' ');
    let seq = Number(last[0]);
    let hash = last[1];
    for (const t of turns) {
      plant(dir, t.sid, t);
      const bates = (JSON.parse(t.bytes) as { bates: string }).bates;
      const body = hashes.canon({ data: { bates, node_hash: nodeHashOf(t.bytes) }, kind: 'node.add' });
      hash = hashes.eventHash(Buffer.from(hash, 'hex'), Buffer.from(body, 'utf8')).toString('hex');
      seq++;
      text += `${seq} ${hash} ${body}\n`;
    }
    writeFileSync(f, text);
    const head = JSON.parse(readFileSync(join(dir, 'HEAD.json'), 'utf8'));
    writeFileSync(join(dir, 'HEAD.json'), `${hashes.canon({ ...head, events: { seq, hash } })}\n`);
  });
}

/** The mirror's note of the commit x0forger was imported from in part (run.ts, partialRef) gone: a mirror made anew. */
function forgetPartial(h: Host): void {
  gitIn(`${h.db}.sync`, 'update-ref', '-d', 'refs/arborist-partial/origin/x0forger');
}

/** Host a with one session of its own on the remote, and that turn's fields as its branch holds them. */
function ownSession() {
  const remote = bareRemote();
  const a = host('a', remote);
  const mine = ask(a, 'mine');
  sync(a);
  return { remote, a, mine, honest: honestTurn(remote, hostIdOf(a), mine.sid) };
}

function hostsOf(r: CliResult): { host: string; status: string; held_back: string[]; problems: string[] }[] {
  return r.json().remotes[0].pulled.hosts;
}

describe('a held-back session lets nothing else of it in', () => {
  it('a turn of another session forked under the held-back turn waits; when this host mints that Bates id itself, the forged turn stays out', () => {
    const { remote, a, mine, honest } = ownSession();
    const claimed = `${mine.sid}-000002`;
    const forged = turnBytes(honest, claimed, mine.bates, 'forged into a');
    const child = turnBytes(honest, 'zzchild00001-000001', claimed, 'under the forged turn');
    forgeHost(remote, 'x0forger', [
      { sid: mine.sid, bytes: forged },
      { sid: 'zzchild00001', bytes: child },
    ]);
    const r = run(a, ['sync', '--json']);
    expect(r.code).toBe(1);
    expect(hostsOf(r)[0]).toMatchObject({ host: 'x0forger', status: 'partial', held_back: [mine.sid] });
    expect(turnsOf(a).has(claimed)).toBe(false);
    expect(turnsOf(a).has('zzchild00001-000001')).toBe(false);
    // a goes on in its own session: the Bates id the forger claimed is minted here, a's own turn.
    const own = ask(a, 'a goes on', ['--session', mine.sid]);
    expect(own.bates).toBe(claimed);
    const again = run(a, ['sync', '--json']);
    expect(hostsOf(again)[0]).toMatchObject({ status: 'partial', held_back: [mine.sid] });
    expect(turnsOf(a).get(claimed)).toBe(own.node_hash);
    expect(turnsOf(a).get(claimed)).not.toBe(nodeHashOf(forged));
    // The forger's child now hangs under a's own turn: a turn names its parent by Bates id only, and a branch can
    // name one still to come in any session, held back or not (none of the held-back turn's content came in).
    expect(turnsOf(a).has('zzchild00001-000001')).toBe(true);
    expect(run(a, ['verify']).code).toBe(0);
  });

  it("the held-back turn's file under a path of the forger's own session refuses the whole host: the turn checks come before any session is held back", () => {
    const { remote, a, mine, honest } = ownSession();
    const forged = turnBytes(honest, `${mine.sid}-000002`, mine.bates, 'forged into a');
    const own = turnBytes(honest, 'zzown0000001-000001', null, 'the forger has a session too');
    // Its file again at a path of the forger's own session (a Bates id no event claims, nor can: the path names it).
    forgeHost(remote, 'x0moved', [
      { sid: mine.sid, bytes: forged },
      { sid: 'zzown0000001', bytes: own },
    ]);
    tamper(remote, 'x0moved', (dir) => {
      writeFileSync(join(dir, 'sessions', 'zz', 'zzown0000001', '000002.json'), forged);
    });
    const r = run(a, ['sync', '--json']);
    expect(hostsOf(r)).toEqual([
      {
        host: 'x0moved',
        status: 'refused',
        held_back: [],
        turns: 0,
        problems: [
          `host x0moved's turn zzown0000001-000002 holds ${mine.sid}-000002, not the turn its path names; nothing of x0moved imported`,
        ],
      },
    ]);
    expect(turnsOf(a).has('zzown0000001-000001')).toBe(false);
    expect(turnsOf(a).has(`${mine.sid}-000002`)).toBe(false);
  });

  it("a held-back session's file marks nothing: its archive mark is not recorded, nor its host", () => {
    const { remote, a, mine, honest } = ownSession();
    const forged = turnBytes(honest, `${mine.sid}-000002`, mine.bates, 'forged into a');
    const other = turnBytes(honest, 'zzother00001-000001', null, 'the forger has a session too');
    forgeHost(remote, 'x0forger', [
      { sid: mine.sid, bytes: forged, session: { archived: true } },
      { sid: 'zzother00001', bytes: other, session: { archived: true } },
    ]);
    const r = run(a, ['sync', '--json']);
    expect(hostsOf(r)[0]).toMatchObject({ status: 'partial', held_back: [mine.sid] });
    const s = Shard.open(a.db, { readonly: true });
    try {
      const marks = syncMarks(s);
      expect(marks.has(mine.sid)).toBe(false);
      // The forger's own session, here now, is marked as its branch says (a mark only: nothing archived).
      expect(marks.get('zzother00001')).toMatchObject({ host: 'x0forger', archived: true });
    } finally {
      s.close();
    }
    expect(turnsOf(a).has('zzother00001-000001')).toBe(true);
    expect(
      expect0(run(a, ['list', '--json']))
        .json()
        .some((x: { sid: string }) => x.sid === mine.sid),
    ).toBe(true);
  });
});

describe("a partial host's head is not recorded: what it imported is held to its next pull", () => {
  it('a branch rewritten after a partial pull, another turn under a Bates id imported from it, is refused, named', () => {
    const { remote, a, mine, honest } = ownSession();
    const held = turnBytes(honest, `${mine.sid}-000002`, mine.bates, 'forged into a');
    const first = turnBytes(honest, 'zzrewrite001-000001', null, 'as first pushed');
    forgeHost(remote, 'x0forger', [
      { sid: mine.sid, bytes: held },
      { sid: 'zzrewrite001', bytes: first },
    ]);
    const r = run(a, ['sync', '--json']);
    expect(hostsOf(r)[0]).toMatchObject({ status: 'partial', held_back: [mine.sid] });
    expect(turnsOf(a).get('zzrewrite001-000001')).toBe(nodeHashOf(first));
    const partial = gitIn(remote, 'rev-parse', 'hosts/x0forger').trim();
    // The writer force-pushes a history in which that Bates id is another turn: no head of it was recorded, so no
    // commit of it had to stay on its branch. Before: 'ok', the other turn skipped as already here, and the
    // rewritten head recorded as imported: the shard held a turn that the only chain it recorded for its host
    // claims as another, and nothing said so.
    const other = turnBytes(honest, 'zzrewrite001-000001', null, 'rewritten');
    forgeHost(remote, 'x0forger', [{ sid: 'zzrewrite001', bytes: other }], { force: true });
    expect(hostsOf(run(a, ['sync', '--json']))[0].problems).toEqual([
      `host x0forger rewrote its history: its branch no longer holds commit ${partial.slice(0, 12)}, imported from in part before; nothing of x0forger imported`,
    ]);
    // The mirror's note of that commit gone (a mirror made anew), the turn itself still says it.
    forgetPartial(a);
    const again = run(a, ['sync', '--json']);
    expect(hostsOf(again)).toEqual([
      {
        host: 'x0forger',
        status: 'refused',
        held_back: [],
        turns: 0,
        problems: [
          'host x0forger rewrote its history at turn zzrewrite001-000001: a turn imported from it before is now another; nothing of x0forger imported',
        ],
      },
    ]);
    expect(again.code).toBe(1);
    expect(turnsOf(a).get('zzrewrite001-000001')).toBe(nodeHashOf(first));
    // Still refused at the next sync: the head stays unrecorded.
    expect(hostsOf(run(a, ['sync', '--json']))[0].status).toBe('refused');
    expect(run(a, ['verify']).code).toBe(0);
  });

  it('so is one whose imported session was archived here since (the mirror made anew)', () => {
    const { remote, a, mine, honest } = ownSession();
    const held = turnBytes(honest, `${mine.sid}-000002`, mine.bates, 'forged into a');
    const first = turnBytes(honest, 'zzrewrite002-000001', null, 'as first pushed');
    forgeHost(remote, 'x0forger', [
      { sid: mine.sid, bytes: held },
      { sid: 'zzrewrite002', bytes: first },
    ]);
    expect(hostsOf(run(a, ['sync', '--json']))[0].status).toBe('partial');
    archive(a, 'zzrewrite002');
    const other = turnBytes(honest, 'zzrewrite002-000001', null, 'rewritten');
    forgeHost(remote, 'x0forger', [{ sid: 'zzrewrite002', bytes: other }], { force: true });
    forgetPartial(a);
    const again = run(a, ['sync', '--json']);
    expect(hostsOf(again)[0]).toMatchObject({
      status: 'refused',
      problems: [
        'host x0forger rewrote its history in session zzrewrite002 (archived here): a turn imported from it before is now another; nothing of x0forger imported',
      ],
    });
    // Restored, it holds the turn first pulled, and the next sync still refuses the rewritten branch.
    archive(a, 'zzrewrite002', true);
    expect(turnsOf(a).get('zzrewrite002-000001')).toBe(nodeHashOf(first));
    expect(hostsOf(run(a, ['sync', '--json']))[0].status).toBe('refused');
  });

  it('so is one that no longer holds the commit imported from: set back to the commit before, or a turn of it dropped', () => {
    const { remote, a, mine, honest } = ownSession();
    forgeHost(remote, 'x0forger', [
      { sid: 'zzbase000001', bytes: turnBytes(honest, 'zzbase000001-000001', null, 'base') },
    ]);
    expect(hostsOf(run(a, ['sync', '--json']))[0].status).toBe('ok');
    const recorded = gitIn(remote, 'rev-parse', 'hosts/x0forger').trim();
    const first = turnBytes(honest, 'zzrewrite003-000001', null, 'as first pushed');
    append(remote, 'x0forger', [
      { sid: mine.sid, bytes: turnBytes(honest, `${mine.sid}-000002`, mine.bates, 'forged into a') },
      { sid: 'zzrewrite003', bytes: first },
    ]);
    const partial = gitIn(remote, 'rev-parse', 'hosts/x0forger').trim();
    expect(hostsOf(run(a, ['sync', '--json']))[0].status).toBe('partial');
    expect(turnsOf(a).get('zzrewrite003-000001')).toBe(nodeHashOf(first));
    const gone = `host x0forger rewrote its history: its branch no longer holds commit ${partial.slice(0, 12)}, imported from in part before; nothing of x0forger imported`;
    // Set back to the commit whose head was recorded: before, 'unchanged', exit 0, the turn here claimed by no
    // recorded head of its host.
    gitIn(remote, 'update-ref', 'refs/heads/hosts/x0forger', recorded);
    const back = run(a, ['sync', '--json']);
    expect(hostsOf(back)).toEqual([
      { host: 'x0forger', status: 'refused', held_back: [], turns: 0, problems: [gone] },
    ]);
    expect(back.code).toBe(1);
    // Or gone on from there without that turn: before, 'ok' and that head recorded.
    append(remote, 'x0forger', [
      { sid: 'zzrewrite004', bytes: turnBytes(honest, 'zzrewrite004-000001', null, 'instead') },
    ]);
    expect(hostsOf(run(a, ['sync', '--json']))).toEqual([
      { host: 'x0forger', status: 'refused', held_back: [], turns: 0, problems: [gone] },
    ]);
    expect(turnsOf(a).has('zzrewrite004-000001')).toBe(false);
    // The commit imported from, back on the branch (its host going on from it), and the host is taken again.
    gitIn(remote, 'update-ref', 'refs/heads/hosts/x0forger', partial);
    append(remote, 'x0forger', [
      { sid: 'zzrewrite004', bytes: turnBytes(honest, 'zzrewrite004-000001', null, 'instead') },
    ]);
    expect(hostsOf(run(a, ['sync', '--json']))[0]).toMatchObject({
      status: 'partial',
      held_back: [mine.sid],
      turns: 1,
    });
    expect(run(a, ['verify']).code).toBe(0);
  });
});
