/**
 * Writes a Claude Code projects folder of generated sessions, for the import benchmark (bench/import.ts).
 *
 *   node dist/bench/claude-corpus.js --out DIR --turns 100000 [--seed 1] [--result-bytes 1500]
 *
 * The lines have the shapes Claude Code writes (docs/import.md cites the sources): a prompt line, then per
 * tool round an assistant line with a tool_use block and a user line with its tool_result (the result's size drawn
 * around --result-bytes, some much larger: file reads), then a final assistant text with stop_reason end_turn.
 * About 5% of prompts are rewinds (a second prompt under an earlier answer: a branch point); sessions run 5-300
 * turns, spread over a few project folders. Deterministic for a seed.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './args.js';
import { corpusText } from './corpus-text.js';
import { Rng } from './rng.js';
import { buildVocabulary } from './words.js';

const { values } = benchArgs('claude-corpus', {
  options: {
    out: { type: 'string' },
    turns: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    'result-bytes': { type: 'string', default: '1500' },
  },
  strict: true,
});
if (!values.out) {
  process.stderr.write('usage: node dist/bench/claude-corpus.js --out DIR --turns N [--seed 1]\n');
  process.exit(2);
}
const OUT = values.out;
const TURNS = Number(values.turns);
const rng = new Rng(Number(values.seed));
const RESULT_BYTES = Number(values['result-bytes']);
const VOCAB = buildVocabulary(6000);
const { words, uuid, resultText } = corpusText(rng, VOCAB, RESULT_BYTES);
const TOOLS = ['Bash', 'Read', 'Edit', 'Grep', 'Glob', 'Write', 'TodoWrite'];

function toolInput(tool: string): Record<string, unknown> {
  switch (tool) {
    case 'Bash':
      return { command: `npm run ${words(1)} -- --${words(1)}`, description: words(5) };
    case 'Read':
    case 'Write':
    case 'Edit':
      return {
        file_path: `/home/dev/project/src/${words(1)}/${words(1)}.ts`,
        old_string: words(8),
        new_string: words(8),
      };
    default:
      return { pattern: words(2), path: '/home/dev/project' };
  }
}

interface Ctx {
  sessionId: string;
  cwd: string;
  clock: number;
  lines: string[];
}

function base(c: Ctx, parentUuid: string | null, type: string) {
  c.clock += rng.int(500, 90_000);
  return {
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: c.cwd,
    sessionId: c.sessionId,
    version: '2.0.14',
    gitBranch: 'main',
    type,
    uuid: uuid(),
    timestamp: new Date(c.clock).toISOString(),
  };
}

/** One turn under `parent`; returns the uuid of its last line (where the next prompt hangs). */
function turn(c: Ctx, parent: string | null): string {
  const prompt = {
    ...base(c, parent, 'user'),
    message: { role: 'user', content: words(8 + rng.int(0, 30)) },
  };
  c.lines.push(JSON.stringify(prompt));
  let last = prompt.uuid;
  const rounds = rng.int(0, 5);
  for (let r = 0; r < rounds; r++) {
    const tool = TOOLS[rng.int(0, TOOLS.length - 1)];
    const id = `toolu_${uuid().replace(/-/g, '').slice(0, 24)}`;
    const a = {
      ...base(c, last, 'assistant'),
      requestId: `req_${uuid().slice(0, 18)}`,
      message: {
        id: `msg_${uuid().slice(0, 18)}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          ...(rng.chance(0.5) ? [{ type: 'text', text: words(10 + rng.int(0, 30)) }] : []),
          { type: 'tool_use', id, name: tool, input: toolInput(tool) },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: rng.int(10, 9000), output_tokens: rng.int(10, 900) },
      },
    };
    c.lines.push(JSON.stringify(a));
    const text = resultText();
    const u = {
      ...base(c, a.uuid, 'user'),
      message: {
        role: 'user',
        content: [{ tool_use_id: id, type: 'tool_result', content: text, is_error: false }],
      },
      toolUseResult: { stdout: text, stderr: '', interrupted: false },
    };
    c.lines.push(JSON.stringify(u));
    last = u.uuid;
  }
  const fin = {
    ...base(c, last, 'assistant'),
    message: {
      id: `msg_${uuid().slice(0, 18)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: words(40 + rng.int(0, 160)) }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: rng.int(10, 9000), output_tokens: rng.int(10, 900) },
    },
  };
  c.lines.push(JSON.stringify(fin));
  return fin.uuid;
}

function main(): void {
  rmSync(OUT, { recursive: true, force: true });
  const projects = Array.from({ length: 6 }, () =>
    `-home-dev-${words(1)}-${words(1)}`.replace(/[^A-Za-z0-9-]/g, '-'),
  );
  let made = 0;
  let files = 0;
  let bytes = 0;
  let clock = Date.UTC(2026, 0, 5);
  while (made < TURNS) {
    const project = projects[rng.int(0, projects.length - 1)];
    const dir = join(OUT, project);
    mkdirSync(dir, { recursive: true });
    const c: Ctx = { sessionId: uuid(), cwd: `/home/dev/${project.slice(10)}`, clock, lines: [] };
    const n = Math.min(TURNS - made, Math.round(5 * Math.exp(rng.float() * Math.log(300 / 5))));
    const ends: string[] = [];
    let leaf: string | null = null;
    for (let i = 0; i < n; i++) {
      // a rewind: the next prompt goes under an earlier answer
      const parent: string | null =
        ends.length > 2 && rng.chance(0.05) ? ends[rng.int(0, ends.length - 2)] : leaf;
      leaf = turn(c, parent);
      ends.push(leaf);
    }
    if (rng.chance(0.3)) c.lines.push(JSON.stringify({ type: 'summary', summary: words(6), leafUuid: leaf }));
    const text = `${c.lines.join('\n')}\n`;
    writeFileSync(join(dir, `${c.sessionId}.jsonl`), text);
    made += n;
    files++;
    bytes += Buffer.byteLength(text);
    clock = c.clock + 3_600_000;
  }
  process.stdout.write(`${OUT}: ${files} files, ${made} turns, ${(bytes / 1048576).toFixed(1)} MiB\n`);
}

main();
