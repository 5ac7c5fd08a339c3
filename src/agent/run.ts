/**
 * Running the agent on the terminal we were started from: no shell, stdio inherited, in the turn's working
 * directory. While it runs, Ctrl-C and Ctrl-\ belong to it: the terminal sends SIGINT/SIGQUIT to the whole
 * foreground process group, so arborist ignores them until the agent exits (as git does while an editor runs).
 */
import { spawn } from 'node:child_process';

export interface AgentExit {
  /** The exit status, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** It could not be started at all (the message, one line). */
  error?: string;
}

export interface AgentRun {
  /** Resolves when the agent has exited. */
  done: Promise<AgentExit>;
  /** Ends the agent (SIGTERM), e.g. when arborist itself is told to stop. */
  kill(): void;
}

/** Starts `executable` as `argv` (argv[0] is the name it sees) in `cwd`; see AgentExit. */
export function startAgent(
  executable: string,
  argv: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): AgentRun {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  process.on('SIGQUIT', ignore);
  const restore = () => {
    process.off('SIGINT', ignore);
    process.off('SIGQUIT', ignore);
  };
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(executable, argv.slice(1), { cwd, env, stdio: 'inherit', argv0: argv[0] });
  } catch (err) {
    restore();
    const error = (err as Error).message.split('\n')[0];
    return { done: Promise.resolve({ code: null, signal: null, error }), kill: () => {} };
  }
  const done = new Promise<AgentExit>((resolve) => {
    let settled = false;
    const finish = (x: AgentExit) => {
      if (settled) return;
      settled = true;
      restore();
      resolve(x);
    };
    child.once('error', (err) => finish({ code: null, signal: null, error: err.message.split('\n')[0] }));
    child.once('exit', (code, signal) => finish({ code, signal }));
  });
  return {
    done,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}

/** How an exit reads in one line: "exit 0", "exit 3", "killed by SIGTERM", "could not start: ...". */
export function describeExit(x: AgentExit): string {
  if (x.error !== undefined) return `could not start: ${x.error}`;
  if (x.signal !== null) return `killed by ${x.signal}`;
  return `exit ${x.code ?? '?'}`;
}
