import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AskError, ask, retrieve, runCommand, splitArgv } from '../../src/ask/index.js';
import { postingsOf, Shard } from '../../src/store/index.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { CAPTURE, type Corpus, capture, counts, nodeCmd, seed } from './helpers.js';

let shard: Shard;
let c: Corpus;
let dir: string;

beforeEach(() => {
  shard = Shard.open(tempDb());
  c = seed(shard);
  dir = tempDir('arborist-cmd-');
});
afterEach(() => shard.close());

/** Running, as opposed to gone or a zombie waiting for a reaper (killed, just not yet collected). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Asks with a command that must fail, and checks that nothing at all changed in the shard. */
async function expectNoTurn(p: Promise<unknown>, code: string, message: RegExp): Promise<AskError> {
  const before = counts(shard);
  const head = shard.chainHead();
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(AskError);
  const e = err as AskError;
  expect(e.code).toBe(code);
  expect(e.message).toMatch(message);
  expect(e.message).not.toContain('\n');
  expect(counts(shard)).toEqual(before);
  expect(shard.chainHead()).toBe(head);
  expect(shard.chainCheck().ok).toBe(true);
  return e;
}

describe('external answer command', () => {
  it('receives exactly one JSON document: question, history (root first), context, cache_key', async () => {
    const out = join(dir, 'stdin.json');
    const question = 'And how does the WAL checkpoint interact with the borrow checker?';
    const expectedContext = retrieve(postingsOf(shard), question, shard.pathTo(c.a2), {
      limit: 8,
    }).citations.map((x) => ({
      bates: x.bates,
      question: x.question,
      snippet: x.snippet,
    }));
    expect(expectedContext.length).toBeGreaterThan(0);
    const chunks: string[] = [];
    const r = await ask(shard, {
      question,
      parent: c.a2,
      provider: capture(out),
      onChunk: (t) => chunks.push(t),
    });

    const raw = readFileSync(out, 'utf8');
    const a1 = shard.requireNode(c.a1);
    const a2 = shard.requireNode(c.a2);
    const expected = {
      question,
      history: [
        { bates: c.a1, question: a1.question, answer: a1.answer_text },
        { bates: c.a2, question: a2.question, answer: a2.answer_text },
      ],
      context: expectedContext,
      cache_key: r.cache_key,
    };
    expect(raw).toBe(`${JSON.stringify(expected)}\n`);
    expect(Object.keys(JSON.parse(raw))).toEqual(['question', 'history', 'context', 'cache_key']);

    expect(r.audit).toBe('fresh');
    expect(r.provider).toBe(`command:${JSON.stringify([process.execPath, CAPTURE, out, '-'])}`);
    expect(chunks.join('')).toBe(`answer #0 to: ${question}\n`);
    const node = shard.requireNode(r.bates);
    expect(node.answer_text).toBe(`answer #0 to: ${question}`);
    expect(node.audit).toBe('fresh');
    expect(node.cache_key).toBe(r.cache_key);
    expect(node.parent_bates).toBe(c.a2);
    expect(shard.chainCheck().ok).toBe(true);
  });

  it('a first turn gets an empty history', async () => {
    const out = join(dir, 'stdin.json');
    await ask(shard, { question: 'hello', provider: capture(out) });
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.history).toEqual([]);
    expect(doc.context).toEqual([]);
  });

  it('history crosses sessions after a cross-session fork', async () => {
    const out = join(dir, 'stdin.json');
    const f1 = await ask(shard, {
      question: 'does rust have a gc?',
      parent: c.a2,
      fork: true,
      provider: capture(out),
    });
    expect(f1.created_session).toBe(true);
    expect(JSON.parse(readFileSync(out, 'utf8')).history.map((h: { bates: string }) => h.bates)).toEqual([
      c.a1,
      c.a2,
    ]);
    const f2 = await ask(shard, {
      question: 'and reference counting?',
      parent: f1.bates,
      provider: capture(out),
    });
    expect(f2.sid).toBe(f1.sid);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.history.map((h: { bates: string }) => h.bates)).toEqual([c.a1, c.a2, f1.bates]);
    expect(doc.history[2]).toEqual({
      bates: f1.bates,
      question: 'does rust have a gc?',
      answer: 'answer #0 to: does rust have a gc?',
    });
    expect(new Set(doc.history.map((h: { bates: string }) => h.bates.split('-')[0])).size).toBe(2);
  });

  it('streams stdout to onChunk as it arrives', async () => {
    const code = `process.stdout.write('first part\\n'); setTimeout(() => process.stdout.write('second part\\n'), 400);`;
    const seen: { text: string; at: number }[] = [];
    const t0 = Date.now();
    const r = await ask(shard, {
      question: 'stream please',
      provider: nodeCmd(code),
      onChunk: (text) => seen.push({ text, at: Date.now() - t0 }),
    });
    const done = Date.now() - t0;
    expect(seen.map((s) => s.text).join('')).toBe('first part\nsecond part\n');
    expect(seen[0].text).toBe('first part\n');
    expect(done - seen[0].at).toBeGreaterThanOrEqual(300);
    expect(r.answer_text).toBe('first part\nsecond part');
  });

  it('keeps multi-byte characters whole across chunks', async () => {
    const code = `const b = Buffer.from('héllo wörld ✓ 🌳'); process.stdout.write(b.subarray(0, 2)); setTimeout(() => process.stdout.write(b.subarray(2)), 100);`;
    const seen: string[] = [];
    const r = await ask(shard, {
      question: 'unicode',
      provider: nodeCmd(code),
      onChunk: (t) => seen.push(t),
    });
    expect(r.answer_text).toBe('héllo wörld ✓ 🌳');
    expect(seen.join('')).toBe('héllo wörld ✓ 🌳');
    expect(seen.every((s) => !s.includes('\ufffd'))).toBe(true);
  });

  it('a failing command (exit 3) creates no node, says why on one line', async () => {
    const e = await expectNoTurn(
      ask(shard, {
        question: 'q',
        parent: c.a1,
        provider: nodeCmd(
          `process.stdout.write('partial'); process.stderr.write('boom\\nmodel not loaded\\n'); process.exit(3)`,
        ),
      }),
      'failed',
      /answer command '.*node.*' failed \(exit status 3\): model not loaded/,
    );
    expect(e.kind).toBe('input');
  });

  it('a failing fork creates no session either', async () => {
    await expectNoTurn(
      ask(shard, {
        question: 'q',
        parent: c.a1,
        fork: true,
        label: 'x',
        provider: nodeCmd('process.exit(1)'),
      }),
      'failed',
      /exit status 1/,
    );
  });

  it('a hanging command is killed at the timeout, with whatever it started', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    // The command starts a grandchild that inherits stdout and would keep the pipe open forever.
    const code = `const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      process.stdout.write('thinking...');
      setInterval(() => {}, 1000);`;
    const t0 = Date.now();
    await expectNoTurn(
      ask(shard, { question: 'q', provider: nodeCmd(code, { timeoutMs: 1500 }) }),
      'timeout',
      /did not finish within 1500 ms/,
    );
    expect(Date.now() - t0).toBeLessThan(10_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pid)).toBe(false);
  });

  it('a flooding command is stopped at the output cap', async () => {
    const code = `const b = Buffer.alloc(65536, 120); (function w() { while (process.stdout.write(b)); process.stdout.once('drain', w); })();`;
    let received = 0;
    await expectNoTurn(
      ask(shard, {
        question: 'q',
        provider: nodeCmd(code, { maxBytes: 200_000 }),
        onChunk: (t) => {
          received += t.length;
        },
      }),
      'too_large',
      /printed more than 200000 bytes/,
    );
    expect(received).toBeLessThanOrEqual(200_000);
  });

  it('a missing command is a clear error', async () => {
    await expectNoTurn(
      ask(shard, { question: 'q', provider: { kind: 'command', argv: ['arborist-no-such-command-x7'] } }),
      'missing',
      /^answer command 'arborist-no-such-command-x7' not found on PATH$/,
    );
    await expectNoTurn(
      ask(shard, { question: 'q', provider: { kind: 'command', argv: [join(dir, 'nope', 'llm')] } }),
      'missing',
      /does not exist$/,
    );
  });

  it('a command that is not executable is a clear error', async () => {
    const f = join(dir, 'script.sh');
    writeFileSync(f, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    await expectNoTurn(
      ask(shard, { question: 'q', provider: { kind: 'command', argv: [f] } }),
      'missing',
      /is not executable/,
    );
  });

  it('empty output is an error, not an empty turn', async () => {
    await expectNoTurn(
      ask(shard, { question: 'q', provider: nodeCmd(`process.stdout.write('\\n\\n')`) }),
      'empty',
      /printed nothing/,
    );
  });

  it('an abort kills the command and adds nothing', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    await expectNoTurn(
      ask(shard, { question: 'q', provider: nodeCmd('setInterval(() => {}, 1000)'), signal: ac.signal }),
      'cancelled',
      /cancelled/,
    );
    const pre = new AbortController();
    pre.abort();
    const marker = join(dir, 'ran');
    await expectNoTurn(
      ask(shard, {
        question: 'q',
        provider: nodeCmd(`require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`),
        signal: pre.signal,
      }),
      'cancelled',
      /cancelled/,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('a question full of shell metacharacters reaches the command as data', async () => {
    const home = tempDir('arborist-home-');
    const keep = join(home, 'keep.txt');
    writeFileSync(keep, 'still here');
    const savedHome = process.env.HOME;
    process.env.HOME = home; // belt and braces: even a shell would only see this folder as ~
    try {
      const pwned = (n: number) => join(dir, `pwned${n}`);
      const question =
        `what does $(rm -rf ~) do? and \`touch ${pwned(1)}\` or $(touch ${pwned(2)}); touch ${pwned(3)} ` +
        `&& echo 'single' "double" \\" | tee ${pwned(4)} > ${pwned(5)} $HOME \${PATH} * ~ ; touch /tmp/pwned`;
      const out = join(dir, 'stdin.json');
      const r = await ask(shard, { question, parent: c.b1, provider: capture(out) });
      const doc = JSON.parse(readFileSync(out, 'utf8'));
      expect(doc.question).toBe(question);
      expect(shard.requireNode(r.bates).question).toBe(question);
      expect(r.answer_text).toBe(`answer #0 to: ${question}`);
      for (let i = 1; i <= 5; i++) expect(existsSync(pwned(i))).toBe(false);
      expect(readFileSync(keep, 'utf8')).toBe('still here');
      expect(readdirSync(dir).sort()).toEqual(['stdin.json', 'stdin.json.argv']);
    } finally {
      process.env.HOME = savedHome;
    }
  });

  it('--answer-cmd arguments reach the program literally, without a shell', async () => {
    const out = join(dir, 'stdin.json');
    const marker = join(dir, 'pwned');
    const line = `"${process.execPath}" '${CAPTURE}' ${out} - '$(touch ${marker})' "\`touch ${marker}\`" $HOME '*'`;
    const argv = splitArgv(line);
    await ask(shard, { question: 'q', provider: { kind: 'command', argv } });
    expect(JSON.parse(readFileSync(`${out}.argv`, 'utf8'))).toEqual([
      out,
      '-',
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      '$HOME',
      '*',
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it('runCommand is usable on its own', async () => {
    const out = await runCommand([process.execPath, '-e', 'process.stdin.pipe(process.stdout)'], 'echo me');
    expect(out).toBe('echo me');
  });
});
