/**
 * A Claude Code machine in a temp folder for the resume tests: CLAUDE_CONFIG_DIR, an ARBORIST_HOME, a PATH whose
 * `claude` is the fake (fixtures/fake-claude.mjs), and transcripts written the way Claude Code writes them.
 */
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Shard } from '../../src/store/index.js';
import { tempDir } from '../support/tmp.js';

export const FAKE_CLAUDE = fileURLToPath(new URL('./fixtures/fake-claude.mjs', import.meta.url));

export interface Machine {
  root: string;
  /** CLAUDE_CONFIG_DIR */
  config: string;
  projects: string;
  /** ARBORIST_HOME */
  home: string;
  db: string;
  /** The fake's log: one JSON line {argv, cwd, file} per run. */
  log: string;
  /** PATH with the fake `claude` first. */
  env: Record<string, string>;
  /** The same without any `claude`. */
  envWithoutClaude: Record<string, string>;
}

/** PATH entries that hold node and the basic tools, and no `claude`. */
const BASE_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

export function machine(): Machine {
  const root = tempDir('arb-resume-');
  const config = join(root, 'claude-config');
  const projects = join(config, 'projects');
  const home = join(root, 'arborist-home');
  const bin = join(root, 'bin');
  const log = join(root, 'fake-claude.log');
  mkdirSync(projects, { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const claude = join(bin, 'claude');
  writeFileSync(claude, `#!/bin/sh\nexec '${process.execPath}' '${FAKE_CLAUDE}' "$@"\n`);
  chmodSync(claude, 0o755);
  const common = {
    HOME: join(root, 'user-home'),
    CLAUDE_CONFIG_DIR: config,
    ARBORIST_HOME: home,
    FAKE_CLAUDE_LOG: log,
  };
  return {
    root,
    config,
    projects,
    home,
    db: join(root, 'sessions.db'),
    log,
    env: { ...common, PATH: `${bin}:${BASE_PATH}` },
    envWithoutClaude: { ...common, PATH: BASE_PATH },
  };
}

/** The fake's runs so far. */
export function fakeRuns(m: Machine): { argv: string[]; cwd: string; file: string | null }[] {
  try {
    return readFileSync(m.log, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

const T0 = Date.parse('2026-03-02T09:00:00.000Z');

/** Writes Claude Code lines for one session, in the shapes Claude Code 2.x writes. */
export class Transcript {
  readonly lines: string[] = [];
  private n = 0;
  constructor(
    readonly sessionId: string,
    readonly cwd: string,
    private readonly t0 = T0,
  ) {}

  private ts(): string {
    return new Date(this.t0 + ++this.n * 7000).toISOString();
  }

  private base(uuid: string, parent: string | null) {
    return {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.0.14',
      gitBranch: 'main',
      uuid,
    };
  }

  user(uuid: string, parent: string | null, text: string): this {
    const b = this.base(uuid, parent);
    this.lines.push(
      JSON.stringify({
        parentUuid: b.parentUuid,
        isSidechain: false,
        userType: 'external',
        cwd: b.cwd,
        sessionId: b.sessionId,
        version: b.version,
        gitBranch: b.gitBranch,
        type: 'user',
        message: { role: 'user', content: text },
        uuid,
        timestamp: this.ts(),
      }),
    );
    return this;
  }

  assistant(uuid: string, parent: string, content: object[], stop: string | null = 'end_turn'): this {
    const b = this.base(uuid, parent);
    this.lines.push(
      JSON.stringify({
        parentUuid: b.parentUuid,
        isSidechain: false,
        userType: 'external',
        cwd: b.cwd,
        sessionId: b.sessionId,
        version: b.version,
        gitBranch: b.gitBranch,
        message: {
          id: `msg_${uuid.slice(0, 8)}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content,
          stop_reason: stop,
          stop_sequence: null,
          usage: { input_tokens: 900, cache_read_input_tokens: 12000, output_tokens: 120 },
        },
        requestId: `req_${uuid.slice(0, 8)}`,
        type: 'assistant',
        uuid,
        timestamp: this.ts(),
      }),
    );
    return this;
  }

  text(uuid: string, parent: string, text: string): this {
    return this.assistant(uuid, parent, [{ type: 'text', text }]);
  }

  toolResult(uuid: string, parent: string, toolUseId: string, output: string): this {
    const b = this.base(uuid, parent);
    this.lines.push(
      JSON.stringify({
        ...b,
        type: 'user',
        message: {
          role: 'user',
          content: [{ tool_use_id: toolUseId, type: 'tool_result', content: output }],
        },
        toolUseResult: { stdout: output, stderr: '', interrupted: false },
        timestamp: this.ts(),
      }),
    );
    return this;
  }

  snapshot(messageId: string): this {
    this.lines.push(
      JSON.stringify({
        type: 'file-history-snapshot',
        messageId,
        snapshot: { messageId, trackedFileBackups: {}, timestamp: this.ts() },
        isSnapshotUpdate: false,
      }),
    );
    return this;
  }

  /** A line written by hand: bytes JSON.stringify would not produce (kept byte for byte by resume). */
  raw(line: string): this {
    this.lines.push(line);
    return this;
  }

  write(file: string, mtime?: Date): string {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${this.lines.join('\n')}\n`);
    if (mtime) utimesSync(file, mtime, mtime);
    return file;
  }
}

export const SID_A = '7f1d2c3b-4a5e-4f60-8a71-92b3c4d5e6f7';
export const SID_B = '0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';

/**
 * A rewound session: "Set up" → "Add a parser" → "Now test it", and a rewind to "Add a parser" that asked again
 * ("…with tests") and went on ("Document it"). Line order as Claude Code writes it: each prompt's file-history
 * snapshot just before it (so the importer files it with the turn before), a summary at the end.
 */
export function rewoundSession(projects: string, cwd: string): { file: string; t: Transcript } {
  const t = new Transcript(SID_A, cwd);
  t.user('u1', null, 'Set up a TypeScript project for a JSON parser')
    .text('a1', 'u1', 'Created package.json and tsconfig.json.')
    .snapshot('u2')
    .user('u2', 'a1', 'Add a parser for arrays')
    .assistant(
      'a2',
      'u2',
      [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'npm test' } }],
      'tool_use',
    )
    .toolResult('r2', 'a2', 'toolu_01', '3 passed')
    // Bytes only a hand (or another tool) writes: a float written 1.0, escapes, spaces after colons.
    .raw(
      `{"parentUuid": "r2", "isSidechain": false, "userType": "external", "cwd": ${JSON.stringify(cwd)}, "sessionId": "${SID_A}", "version": "2.0.14", "message": {"id": "msg_a2b", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [{"type": "text", "text": "Arrays parse; caf\\u00e9 \\/ 1e3 done"}], "stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 1.0, "output_tokens": 12}, "meta": {"sessionId": "nested-stays"}}, "type": "assistant", "uuid": "a2b", "timestamp": "2026-03-02T09:00:30.000Z"}`,
    )
    .snapshot('u3')
    .user('u3', 'a2b', 'Now test it')
    .text('a3', 'u3', 'Added tests for arrays.')
    .snapshot('u2x')
    .user('u2x', 'a1', 'Add a parser for arrays, with tests this time')
    .text('a2x', 'u2x', 'Parser and tests added.')
    .user('u3x', 'a2x', 'Document it')
    .text('a3x', 'u3x', 'README updated.');
  t.raw(JSON.stringify({ type: 'summary', summary: 'JSON parser with tests', leafUuid: 'a3x' }));
  const file = t.write(join(projects, cwdProject(cwd), `${SID_A}.jsonl`));
  return { file, t };
}

/** Claude Code's project folder for a directory. */
export function cwdProject(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Bates ids of imported turns by their prompt's uuid. */
export function batesOf(db: string, uuids: string[]): Record<string, string> {
  const s = Shard.open(db, { readonly: true });
  try {
    return Object.fromEntries(s.turnsBySourceId('claude', uuids));
  } finally {
    s.close();
  }
}

/** The `session.resume` events of a shard, oldest first. */
export function resumeEvents(db: string): Record<string, unknown>[] {
  const s = Shard.open(db, { readonly: true });
  try {
    const out: Record<string, unknown>[] = [];
    for (let seq = 1; seq <= s.audit.count(); seq++) {
      const e = s.audit.event(seq);
      if (e?.kind === 'session.resume') out.push(e.data as Record<string, unknown>);
    }
    return out;
  } finally {
    s.close();
  }
}
