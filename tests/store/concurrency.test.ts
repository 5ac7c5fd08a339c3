import { execSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { tempDb } from '../support/tmp.js';
import { newShard } from './util.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/src/store/index.js', import.meta.url));
const SRC = fileURLToPath(new URL('../../src/store/', import.meta.url));

/** The newest modification time among the store's sources. */
function newestSource(): number {
  return Math.max(...readdirSync(SRC, { recursive: true }).map((f) => statSync(SRC + String(f)).mtimeMs));
}

/**
 * Each child opens the shard, says "ready", waits for "go" on stdin (so both start writing together), then adds
 * N turns to the shared session, each under its own previous turn, and prints the Bates ids it got.
 */
const CHILD = `
import { Shard } from ${JSON.stringify(pathToFileURL(DIST).href)};
const [path, sid, parent, n, tag] = process.argv.slice(1);
const s = Shard.open(path);
process.stdout.write('ready\\n');
process.stdin.once('data', async () => {
  let last = parent;
  const out = [];
  for (let i = 0; i < Number(n); i++) {
    last = s.addTurn({ question: tag + ' turn ' + i, answer_text: 'answer ' + i, session: sid, parent: last }).bates;
    out.push(last);
    // let the other writer in now and then, so the two really interleave
    if (i % 4 === 3) await new Promise((r) => setTimeout(r, 1));
  }
  s.close();
  process.stdout.write(JSON.stringify(out) + '\\n');
  process.exit(0);
});
`;

function child(args: string[]) {
  const p = spawn(process.execPath, ['--input-type=module', '-e', CHILD, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  p.stdout.setEncoding('utf8');
  p.stderr.setEncoding('utf8');
  const ready = new Promise<void>((resolve, reject) => {
    p.stdout.on('data', (d: string) => {
      stdout += d;
      if (stdout.startsWith('ready\n')) resolve();
    });
    p.on('exit', () => reject(new Error(`child exited before ready: ${stderr}`)));
  });
  p.stderr.on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; bates: string[]; stderr: string }>((resolve) => {
    p.on('exit', (code) => {
      const lines = stdout.trim().split('\n');
      let bates: string[] = [];
      try {
        bates = JSON.parse(lines[lines.length - 1]) as string[];
      } catch {
        // reported through code/stderr below
      }
      resolve({ code, bates, stderr });
    });
  });
  return { go: () => p.stdin.end('go\n'), ready, done };
}

describe('two processes writing at once', () => {
  beforeAll(() => {
    // The lead's pretest builds dist; build it here when it is missing or older than the store's source.
    if (!existsSync(DIST) || statSync(DIST).mtimeMs < newestSource()) {
      try {
        execSync('npx tsc -p tsconfig.json', { cwd: ROOT, stdio: 'pipe' });
      } catch {
        // Errors elsewhere in the project still emit the store; the check below decides.
      }
    }
    expect(existsSync(DIST)).toBe(true);
  }, 120_000);

  it('loses nothing and keeps one linear chain', async () => {
    const path = tempDb();
    const s = Shard.open(path);
    const sess = s.createSession({ sid: 'shared' });
    const root = s.addTurn({ question: 'root', answer_text: '', session: sess.sid });
    s.close();

    const N = 200;
    const a = child([path, 'shared', root.bates, String(N), 'alpha']);
    const b = child([path, 'shared', root.bates, String(N), 'beta']);
    await Promise.all([a.ready, b.ready]);
    a.go();
    b.go();
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.stderr).toBe('');
    expect(rb.stderr).toBe('');
    expect(ra.code).toBe(0);
    expect(rb.code).toBe(0);
    expect(ra.bates).toHaveLength(N);
    expect(rb.bates).toHaveLength(N);

    const t = newShard(path);
    // 400 turns plus the root, seqs 1..401 with no gap and no duplicate, split between the two writers
    const seqs = t.sessionTree('shared').map((n) => n.seq);
    expect(seqs.length).toBe(2 * N + 1);
    expect(new Set(seqs).size).toBe(2 * N + 1);
    expect(Math.max(...seqs)).toBe(2 * N + 1);
    expect(new Set([...ra.bates, ...rb.bates]).size).toBe(2 * N);
    // the two writers really did interleave (otherwise this test would not test concurrency)
    const bySeq = t.sessionTree('shared').sort((x, y) => x.seq - y.seq);
    const switches = bySeq.filter((n, i) => i > 1 && n.question[0] !== bySeq[i - 1].question[0]).length;
    expect(switches).toBeGreaterThan(0);
    expect(t.getSession('shared')!.n_nodes).toBe(2 * N + 1);
    expect(dbOf(t).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(2 * N + 1);
    // each writer's turns form its own unbroken chain under the root: the root is the only branch point
    expect(t.branchPoints()).toEqual([{ bates: root.bates, n_children: 2 }]);
    expect(t.pathTo(ra.bates[N - 1])).toHaveLength(N + 1);
    expect(t.pathTo(rb.bates[N - 1])).toHaveLength(N + 1);
    expect(t.pathTo(ra.bates[N - 1]).every((n, i) => i === 0 || n.question.startsWith('alpha'))).toBe(true);

    // the audit chain: init, session.create, root, then exactly one event per turn, in one linear chain
    const c = t.chainCheck();
    expect(c.ok).toBe(true);
    expect(c.events).toBe(3 + 2 * N);
    const links = dbOf(t).prepare('SELECT prev_hash FROM audit_events').pluck().all() as Buffer[];
    expect(new Set(links.map((l) => l.toString('hex'))).size).toBe(links.length); // no fork: every prev is used once
    expect(dbOf(t).prepare("SELECT count(*) FROM audit_events WHERE kind = 'node.add'").pluck().get()).toBe(
      2 * N + 1,
    );

    const v = t.verify();
    expect(v).toEqual({ ok: true, nodes: 2 * N + 1, mismatches: [], edited: [], sessions: [] });
    // both writers' turns are findable
    expect(t.search('alpha turn 199').hits.map((h) => h.bates)).toContain(ra.bates[N - 1]);
    expect(t.search('beta turn 0').hits.map((h) => h.bates)).toContain(rb.bates[0]);
  }, 60_000);
});

describe('two connections in one process', () => {
  it('sees the other writer at once and notices it through data_version', () => {
    const path = tempDb();
    const s1 = newShard(path);
    const s2 = newShard(path);
    const v0 = s1.dataVersion();
    const t = s2.addTurn({ question: 'from the other side', answer_text: '' });
    expect(s1.dataVersion()).not.toBe(v0);
    expect(s1.requireNode(t.bates).question).toBe('from the other side');
    expect(s1.search('other side').hits.map((h) => h.bates)).toEqual([t.bates]);
    // s1 continues the chain s2 extended, rather than forking it
    s1.addTurn({ question: 'reply', answer_text: '', parent: t.bates });
    expect(s2.chainCheck()).toMatchObject({ ok: true, events: 1 + 2 + 1 });
  });

  it('a writer blocked past its busy timeout gets a one-line busy error and changes nothing', () => {
    const path = tempDb();
    const s1 = newShard(path);
    const s2 = newShard(path, { busyTimeoutMs: 50 });
    const root = s1.addTurn({ question: 'root', answer_text: '' });
    const head = s1.chainHead();
    dbOf(s1).exec('BEGIN IMMEDIATE');
    try {
      let err: unknown;
      try {
        s2.addTurn({ question: 'blocked', answer_text: '', parent: root.bates });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ kind: 'busy' });
      expect((err as Error).message).not.toContain('\n');
    } finally {
      dbOf(s1).exec('ROLLBACK');
    }
    expect(s2.chainHead()).toBe(head);
    // once the lock is gone the next seq is the one that was not used
    expect(s2.addTurn({ question: 'now', answer_text: '', parent: root.bates }).seq).toBe(2);
  });
});
