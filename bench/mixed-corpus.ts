/**
 * Writes a home folder holding the histories of several agents, for the mixed import benchmark
 * (`npm run bench:import -- --mixed`): Claude Code (bench/claude-corpus.ts, into ~/.claude/projects), Codex CLI
 * rollouts, Gemini CLI JSONL chats, GitHub Copilot CLI event logs, Pi sessions and OpenClaw transcripts, about the
 * same number of turns each, laid out where each tool keeps them so that `arborist import` with no kind finds them.
 *
 *   node dist/bench/mixed-corpus.js --out DIR --turns 60000 [--seed 1] [--result-bytes 800]
 *
 * The record shapes are the ones the readers' tests check against real files (tests/import/fixtures/<kind>, and
 * tests/import/contract/formats.ts for the smallest form of each): a prompt, per tool round a call and its result
 * (results sized around --result-bytes, one in ten ten times larger), a final answer. Deterministic for a seed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.js';
import { corpusText } from './corpus-text.js';
import { Rng } from './rng.js';
import { buildVocabulary } from './words.js';

const { values } = benchArgs('mixed-corpus', {
  options: {
    out: { type: 'string' },
    turns: { type: 'string', default: '60000' },
    seed: { type: 'string', default: '1' },
    'result-bytes': { type: 'string', default: '800' },
  },
  strict: true,
});
if (!values.out) {
  process.stderr.write('usage: node dist/bench/mixed-corpus.js --out DIR --turns N [--seed 1]\n');
  process.exit(2);
}
const OUT = values.out;
const TURNS = Number(values.turns);
const RESULT_BYTES = Number(values['result-bytes']);
const rng = new Rng(Number(values.seed));
const VOCAB = buildVocabulary(6000);
const { words, uuid, resultText } = corpusText(rng, VOCAB, RESULT_BYTES);
const KINDS = ['claude', 'codex', 'gemini', 'copilot', 'pi', 'openclaw'] as const;
const PER_KIND = Math.max(1, Math.floor(TURNS / KINDS.length));

/** One generated turn: what every format writes, each in its own shape. */
interface Turn {
  question: string;
  rounds: { command: string; result: string }[];
  answer: string;
}

function genTurn(): Turn {
  const rounds = Array.from({ length: rng.int(0, 4) }, () => ({
    command: `npm run ${words(1)} -- --${words(1)}`,
    result: resultText(),
  }));
  return { question: words(8 + rng.int(0, 30)), rounds, answer: words(20 + rng.int(0, 120)) };
}

let clock = Date.parse('2026-01-05T09:00:00.000Z');
function tick(): string {
  clock += rng.int(500, 90_000);
  return new Date(clock).toISOString();
}

/** Sessions of 5-120 turns until `total` turns are written; `write` lays one session out. */
function sessions(total: number, write: (turns: Turn[], n: number) => void): void {
  let done = 0;
  for (let n = 0; done < total; n++) {
    const size = Math.min(total - done, rng.int(5, 120));
    write(Array.from({ length: size }, genTurn), n);
    done += size;
  }
}

const CWD = '/home/dev/project';
const day = (iso: string) => iso.slice(0, 10).split('-');

function codex(home: string): void {
  sessions(PER_KIND, (turns) => {
    const id = uuid();
    const started = tick();
    const [y, m, d] = day(started);
    const dir = join(home, '.codex', 'sessions', y, m, d);
    mkdirSync(dir, { recursive: true });
    const line = (type: string, payload: Record<string, unknown>) =>
      JSON.stringify({ timestamp: tick(), type, payload });
    const out = [
      JSON.stringify({
        timestamp: started,
        type: 'session_meta',
        payload: { id, timestamp: started, cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.125.0' },
      }),
    ];
    for (const t of turns) {
      const turnId = uuid();
      out.push(line('event_msg', { type: 'task_started', turn_id: turnId }));
      out.push(line('turn_context', { turn_id: turnId, cwd: CWD, model: 'gpt-5.5' }));
      out.push(
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: t.question }],
        }),
      );
      out.push(line('event_msg', { type: 'user_message', message: t.question, images: [] }));
      for (const r of t.rounds) {
        const callId = `call_${uuid().slice(0, 18)}`;
        out.push(
          line('response_item', {
            type: 'function_call',
            name: 'shell',
            arguments: JSON.stringify({ command: ['bash', '-lc', r.command] }),
            call_id: callId,
          }),
        );
        out.push(
          line('response_item', {
            type: 'function_call_output',
            call_id: callId,
            output: JSON.stringify({ output: r.result, metadata: { exit_code: 0 } }),
          }),
        );
      }
      out.push(
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: t.answer }],
        }),
      );
      out.push(line('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: null }));
    }
    const stamp = started.slice(0, 19).replace(/:/g, '-');
    writeFileSync(join(dir, `rollout-${stamp}-${id}.jsonl`), `${out.join('\n')}\n`);
  });
}

function gemini(home: string): void {
  sessions(PER_KIND, (turns, n) => {
    const id = uuid();
    const dir = join(home, '.gemini', 'tmp', `project${n % 7}`, 'chats');
    mkdirSync(dir, { recursive: true });
    const started = tick();
    const out = [
      JSON.stringify({
        sessionId: id,
        projectHash: `project${n % 7}`,
        startTime: started,
        lastUpdated: started,
        kind: 'main',
      }),
    ];
    turns.forEach((t, i) => {
      out.push(
        JSON.stringify({
          id: `u${i}-${id}`,
          timestamp: tick(),
          type: 'user',
          content: [{ text: t.question }],
        }),
      );
      const toolCalls = t.rounds.map((r, k) => ({
        id: `run_shell_command-${i}-${k}`,
        name: 'run_shell_command',
        args: { command: r.command },
        result: [
          {
            functionResponse: {
              id: `run_shell_command-${i}-${k}`,
              name: 'run_shell_command',
              response: { output: r.result },
            },
          },
        ],
        status: 'success',
        timestamp: tick(),
      }));
      out.push(
        JSON.stringify({
          id: `g${i}-${id}`,
          timestamp: tick(),
          type: 'gemini',
          content: t.answer,
          toolCalls,
          model: 'gemini-2.5-pro',
        }),
      );
    });
    writeFileSync(
      join(dir, `session-${started.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`),
      `${out.join('\n')}\n`,
    );
  });
}

function copilot(home: string): void {
  sessions(PER_KIND, (turns) => {
    const id = uuid();
    const dir = join(home, '.copilot', 'session-state', id);
    mkdirSync(dir, { recursive: true });
    let parent: string | null = null;
    const out: string[] = [];
    const ev = (type: string, data: Record<string, unknown>) => {
      const eid = uuid();
      out.push(JSON.stringify({ type, data, id: eid, timestamp: tick(), parentId: parent }));
      parent = eid;
    };
    ev('session.start', {
      sessionId: id,
      version: 1,
      producer: 'copilot-agent',
      copilotVersion: '1.0.34',
      startTime: new Date(clock).toISOString(),
      context: { cwd: CWD },
    });
    turns.forEach((t, i) => {
      ev('user.message', { content: t.question, attachments: [] });
      ev('assistant.turn_start', { turnId: String(i) });
      for (const r of t.rounds) {
        const callId = `call_${uuid().slice(0, 18)}`;
        ev('assistant.message', {
          messageId: uuid(),
          content: '',
          toolRequests: [{ toolCallId: callId, name: 'bash', arguments: { command: r.command } }],
        });
        ev('tool.execution_start', {
          toolCallId: callId,
          toolName: 'bash',
          arguments: { command: r.command },
        });
        ev('tool.execution_complete', { toolCallId: callId, success: true, result: { content: r.result } });
      }
      ev('assistant.message', { messageId: uuid(), content: t.answer, toolRequests: [] });
      ev('assistant.turn_end', { turnId: String(i) });
    });
    writeFileSync(join(dir, 'events.jsonl'), `${out.join('\n')}\n`);
  });
}

/** Pi's and OpenClaw's records (the same format): message entries linked by id and parentId. */
function piRecords(turns: Turn[]): string[] {
  const out: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const entry = (message: Record<string, unknown>) => {
    const id = (n++).toString(16).padStart(8, '0');
    out.push(
      JSON.stringify({
        type: 'message',
        id,
        parentId: parent,
        timestamp: tick(),
        message: { ...message, timestamp: clock },
      }),
    );
    parent = id;
  };
  for (const t of turns) {
    entry({ role: 'user', content: t.question });
    for (const r of t.rounds) {
      const callId = `toolu_${uuid().slice(0, 20)}`;
      entry({
        role: 'assistant',
        content: [{ type: 'toolCall', id: callId, name: 'bash', arguments: { command: r.command } }],
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        stopReason: 'toolUse',
      });
      entry({
        role: 'toolResult',
        toolCallId: callId,
        toolName: 'bash',
        content: [{ type: 'text', text: r.result }],
        isError: false,
      });
    }
    entry({
      role: 'assistant',
      content: [{ type: 'text', text: t.answer }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'stop',
    });
  }
  return out;
}

function pi(home: string): void {
  const dir = join(home, '.pi', 'agent', 'sessions', '--home-dev-project--');
  mkdirSync(dir, { recursive: true });
  sessions(PER_KIND, (turns) => {
    const id = uuid();
    const started = tick();
    const header = JSON.stringify({ type: 'session', version: 3, id, timestamp: started, cwd: CWD });
    writeFileSync(
      join(dir, `${started.replace(/[:.]/g, '-')}_${id}.jsonl`),
      `${[header, ...piRecords(turns)].join('\n')}\n`,
    );
  });
}

function openclaw(home: string): void {
  const dir = join(home, '.openclaw', 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  sessions(PER_KIND, (turns) => {
    const id = uuid();
    const header = JSON.stringify({ type: 'session', version: 3, id, timestamp: tick(), cwd: CWD });
    writeFileSync(join(dir, `${id}.jsonl`), `${[header, ...piRecords(turns)].join('\n')}\n`);
  });
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
execFileSync(
  process.execPath,
  [
    join(import.meta.dirname, 'claude-corpus.js'),
    '--out',
    join(OUT, '.claude', 'projects'),
    '--turns',
    String(PER_KIND),
    '--seed',
    String(values.seed),
    '--result-bytes',
    String(RESULT_BYTES),
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
codex(OUT);
gemini(OUT);
copilot(OUT);
pi(OUT);
openclaw(OUT);
process.stderr.write(`mixed corpus: ${PER_KIND * KINDS.length} turns, ${KINDS.join(', ')} under ${OUT}\n`);
