import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/arborist', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON documents of many shapes
  json: () => any;
}

/** Runs the built binary as a user would, with a clean environment (no colour, no inherited shard). */
export function cli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {},
): CliResult {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...opts.env };
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env,
    input: opts.input ?? '',
    encoding: 'utf8',
    cwd: opts.cwd,
    // A command that hangs fails its test in bounded time instead of stalling the suite.
    timeout: opts.timeoutMs ?? 60_000,
    killSignal: 'SIGKILL',
    maxBuffer: 256 * 1024 * 1024,
  });
  return {
    code: r.status ?? -1,
    stdout: r.stdout,
    stderr: r.stderr,
    json: () => JSON.parse(r.stdout),
  };
}
