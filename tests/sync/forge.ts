import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { hashes } from '../../src/store/index.js';
import {
  ask,
  bareRemote,
  gitIn,
  type Host,
  host,
  hostIdOf,
  sync,
  tempDir,
  writeFileSync,
} from './helpers.js';

/** What the attack tests (attack.test.ts, forged.test.ts) forge a host's branch with. */

/** A forged turn of a new session `sid`: an honest turn's fields with another Bates id and question. */
export function forgedTurn(
  honest: Record<string, unknown>,
  sid: string,
  question: string,
): { bates: string; bytes: string; node_hash: string } {
  const bates = `${sid}-000001`;
  const bytes = hashes.nodeContentJson({ ...honest, bates, parent_bates: null, question } as never);
  const node_hash = hashes.sha256(Buffer.concat([hashes.LEAF, Buffer.from(bytes, 'utf8')])).toString('hex');
  return { bates, bytes, node_hash };
}

/** Writes the forged turn and its session file into a checkout of a host's branch. */
export function plant(
  dir: string,
  sid: string,
  t: { bytes: string; session?: Record<string, unknown> },
): void {
  const d = join(dir, 'sessions', sid.slice(0, 2), sid);
  execFileSync('mkdir', ['-p', d]);
  writeFileSync(join(d, `${(JSON.parse(t.bytes) as { bates: string }).bates.split('-')[1]}.json`), t.bytes);
  writeFileSync(
    join(d, 'session.json'),
    `${hashes.canon({ sid, label: null, created_at: '2026-01-01T00:00:00.000Z', archived: false, origin: null, ...t.session })}\n`,
  );
}

/** The fields of a host's first turn of session `sid` as its branch on the remote holds them: what a forger copies. */
export function honestTurn(remote: string, hostId: string, sid: string): Record<string, unknown> {
  return JSON.parse(gitIn(remote, 'show', `hosts/${hostId}:sessions/${sid.slice(0, 2)}/${sid}/000001.json`));
}

/**
 * What each forged-host test starts from: a remote, host a with one honest turn `h` pushed, host b yet to sync, and
 * that turn's fields as a's branch holds them (what a forger copies).
 */
// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON of the honest turn
export function scene(): { remote: string; a: Host; b: Host; h: any; honest: Record<string, unknown> } {
  const remote = bareRemote();
  const a = host('a', remote);
  const b = host('b', remote);
  const h = ask(a, 'honest');
  sync(a);
  return { remote, a, b, h, honest: honestTurn(remote, hostIdOf(a), h.sid) };
}

/**
 * A host's branch made from nothing, as a remote writer can: one event claiming each turn, linked from zero. `force`:
 * over the branch already there (a history rewritten whole).
 */
export function forgeHost(
  remote: string,
  id: string,
  turns: { sid: string; bytes: string; session?: Record<string, unknown> }[],
  opts: { force?: boolean } = {},
): void {
  const dir = join(tempDir('arb-forge-'), 'w');
  execFileSync('git', ['init', '--quiet', dir]);
  let prev: Buffer = hashes.ZERO_HASH;
  const lines: string[] = [];
  turns.forEach((t, i) => {
    plant(dir, t.sid, t);
    const node_hash = hashes
      .sha256(Buffer.concat([hashes.LEAF, Buffer.from(t.bytes, 'utf8')]))
      .toString('hex');
    const body = Buffer.from(
      hashes.canon({
        data: { bates: (JSON.parse(t.bytes) as { bates: string }).bates, node_hash },
        kind: 'node.add',
      }),
      'utf8',
    );
    prev = hashes.eventHash(prev, body);
    lines.push(`${i + 1} ${prev.toString('hex')} ${body.toString('utf8')}\n`);
  });
  execFileSync('mkdir', ['-p', join(dir, 'events')]);
  writeFileSync(join(dir, 'events', '000000.txt'), lines.join(''));
  writeFileSync(
    join(dir, 'HEAD.json'),
    `${hashes.canon({ events: { hash: prev.toString('hex'), seq: turns.length }, format: 1, host: id, sessions: 0, turns: 0 })}\n`,
  );
  const g = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  g('add', '-A');
  g('-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '--quiet', '-m', 'forged');
  g('push', '--quiet', ...(opts.force ? ['--force'] : []), remote, `HEAD:refs/heads/hosts/${id}`);
}
