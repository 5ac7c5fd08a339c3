import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { buildDemo } from '../../src/ui/runtime/demo.js';
import { Tui } from '../support/pty.js';
import { tempDb, tempDir } from '../support/tmp.js';

export const ANSWER_SCRIPT = fileURLToPath(new URL('./fixtures/answer.mjs', import.meta.url));
export const CRASH_SCRIPT = fileURLToPath(new URL('./fixtures/crash.mjs', import.meta.url));

const running: Tui[] = [];

afterEach(() => {
  while (running.length > 0) running.pop()!.kill();
});

/** Starts the browser and registers it for cleanup. */
export async function start(opts: Parameters<typeof Tui.start>[0]): Promise<Tui> {
  const home = opts.env?.ARBORIST_HOME ?? tempDir('arborist-home-');
  const t = Tui.start({ ...opts, env: { ARBORIST_HOME: home, ...opts.env } });
  const tui = await t.catch((e) => {
    throw e;
  });
  running.push(tui);
  return tui;
}

export interface DemoShard {
  db: string;
  /** sid by label */
  sid: Record<string, string>;
  /** bates of a session's turns, in seq order, by label */
  turns: Record<string, string[]>;
}

/** A fresh shard with the demo sessions. */
export function demoShard(): DemoShard {
  const db = tempDb();
  const s = Shard.open(db);
  buildDemo(s, Date.now());
  const sid: Record<string, string> = {};
  const turns: Record<string, string[]> = {};
  for (const ses of s.listSessions()) {
    sid[ses.label!] = ses.sid;
    turns[ses.label!] = s
      .sessionTree(ses.sid)
      .map((n) => n.bates)
      .sort();
  }
  s.close();
  return { db, sid, turns };
}

/** An ARBORIST_HOME whose config.json answers with the test answer command. */
export function answerHome(): string {
  const home = tempDir('arborist-home-');
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ answer: { command: [process.execPath, ANSWER_SCRIPT] } }),
  );
  return home;
}

export function withShard<T>(db: string, fn: (s: Shard) => T): T {
  const s = Shard.open(db);
  try {
    return fn(s);
  } finally {
    s.close();
  }
}
