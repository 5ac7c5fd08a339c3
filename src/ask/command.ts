import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { AskError, cancelled } from './errors.js';
import { clipLine } from './text.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
/** How long output still in the pipe may take to arrive after the command exited. */
const EXIT_GRACE_MS = 250;

/** The one JSON document an answer command reads on stdin. */
export interface CommandInput {
  question: string;
  /** The path from the root to the parent, crossing sessions, oldest first. Empty for a first turn. */
  history: { bates: string; question: string; answer: string }[];
  /** Earlier turns the built-in retrieval found for this question (may be empty). */
  context: { bates: string; question: string; snippet: string }[];
  cache_key: string;
}

export interface RunOptions {
  timeoutMs?: number;
  maxBytes?: number;
  onChunk?: (text: string) => void;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

function describeSize(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function describeTime(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  return lines.length === 0 ? '' : clipLine(lines[lines.length - 1], 200);
}

/**
 * Runs an answer command without a shell: argv[0] is looked up on PATH and gets argv[1..] as its arguments, the
 * input document on stdin, and nothing is interpolated anywhere. Resolves with everything it printed on stdout
 * (decoded as UTF-8), after streaming each piece to onChunk as it arrives. Rejects with a one-line AskError on a
 * spawn failure, a non-zero exit or a signal, a timeout, output over the cap, empty output, or an abort; in the
 * last three cases (and on timeout) the command's whole process group is killed.
 */
export function runCommand(argv: readonly string[], input: string, opts: RunOptions = {}): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  if (argv.length === 0 || argv[0] === '')
    return Promise.reject(new AskError('config', 'the answer command is empty'));
  const name = clipLine(argv[0], 80);
  if (opts.signal?.aborted) return Promise.reject(cancelled());

  return new Promise<string>((resolve, reject) => {
    const group = process.platform !== 'win32';
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(argv[0], argv.slice(1), {
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        // Its own process group, so a timeout or an abort also stops whatever a wrapper script started.
        detached: group,
        windowsHide: true,
        env: opts.env ?? process.env,
        cwd: opts.cwd,
      });
    } catch (err) {
      reject(spawnError(name, err));
      return;
    }

    let settled = false;
    let bytes = 0;
    const parts: string[] = [];
    const decoder = new StringDecoder('utf8');
    let stderrTail = '';

    const kill = () => {
      if (child.pid === undefined) return;
      try {
        if (group) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const cleanup = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      kill();
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      reject(err);
    };
    const emit = (text: string) => {
      if (text === '') return;
      parts.push(text);
      try {
        opts.onChunk?.(text);
      } catch (err) {
        fail(err);
      }
    };
    const onAbort = () => fail(cancelled());
    const timer = setTimeout(
      () =>
        fail(
          new AskError(
            'timeout',
            `answer command '${name}' did not finish within ${describeTime(timeoutMs)}; stopped it, no turn was added`,
          ),
        ),
      timeoutMs,
    );
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (err) => fail(spawnError(name, err)));
    // The command may answer without reading all of its input: a closed pipe is not an error.
    child.stdin?.on('error', () => {});
    child.stdout?.on('data', (buf: Buffer) => {
      if (settled) return;
      bytes += buf.length;
      if (bytes > maxBytes) {
        fail(
          new AskError(
            'too_large',
            `answer command '${name}' printed more than ${describeSize(maxBytes)}; stopped it, no turn was added`,
          ),
        );
        return;
      }
      emit(decoder.write(buf));
    });
    child.stderr?.on('data', (buf: Buffer) => {
      stderrTail = (stderrTail + buf.toString('utf8')).slice(-4096);
    });
    // The turn is done when the command exits, not when its stdout closes: a background child it left behind may
    // hold the pipe open for ever. After the exit, what is still in the pipe gets a short grace to arrive.
    let finished = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(grace);
      child.stdout?.destroy();
      child.stderr?.destroy();
      onClose(code, signal);
    };
    let grace: NodeJS.Timeout | undefined;
    child.on('exit', (code, signal) => {
      if (settled) return;
      grace = setTimeout(() => finish(code, signal), EXIT_GRACE_MS);
    });
    child.on('close', (code, signal) => finish(code, signal));
    const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      emit(decoder.end());
      if (settled) return;
      const why = lastLine(stderrTail);
      if (code !== 0) {
        const status = code === null ? `killed by ${signal ?? 'a signal'}` : `exit status ${code}`;
        fail(new AskError('failed', `answer command '${name}' failed (${status})${why ? `: ${why}` : ''}`));
        return;
      }
      const text = parts.join('');
      if (text.trim() === '') {
        fail(new AskError('empty', `answer command '${name}' printed nothing; no turn was added`));
        return;
      }
      settled = true;
      cleanup();
      resolve(text);
    };
    child.stdin?.end(input);
  });
}

function spawnError(name: string, err: unknown): AskError {
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT') {
    return new AskError(
      'missing',
      name.includes('/')
        ? `answer command '${name}' does not exist`
        : `answer command '${name}' not found on PATH`,
    );
  }
  if (code === 'EACCES' || code === 'EPERM')
    return new AskError('missing', `answer command '${name}' is not executable`);
  const msg = err instanceof Error ? err.message : String(err);
  return new AskError('missing', `answer command '${name}' could not be started: ${clipLine(msg, 200)}`);
}
