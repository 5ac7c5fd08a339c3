import { describe, expect, it } from 'vitest';
import { hashes, Shard, syncMarks } from '../../src/store/index.js';
import type { CliResult } from '../support/cli.js';
import { forgeHost, honestTurn } from './forge.js';
import { archive, ask, bareRemote, expect0, host, hostIdOf, run, sync, turnsOf } from './helpers.js';

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
    expect(run(a, ['verify']).code).toBe(0);
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
    // The writer force-pushes a history in which that Bates id is another turn: no head of it was recorded, so no
    // commit of it had to stay on its branch.
    const other = turnBytes(honest, 'zzrewrite001-000001', null, 'rewritten');
    forgeHost(remote, 'x0forger', [{ sid: 'zzrewrite001', bytes: other }], { force: true });
    const again = run(a, ['sync', '--json']);
    // Before: 'ok', the other turn skipped as already here, and the rewritten head recorded as imported: the shard
    // held a turn that the only chain it recorded for its host claims as another, and nothing said so.
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

  it('so is one whose imported session was archived here since', () => {
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
});
