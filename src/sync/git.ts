import { spawn } from 'node:child_process';
import { ArboristError } from '../store/index.js';
import { oneLine } from '../text/sanitize.js';
import { redactedUrl } from './url.js';

/**
 * The `git` command, run as sync needs it (docs/sync.md): never through a shell (arguments as an array), with no
 * terminal prompt (a remote that wants a password fails instead of waiting), in the local mirror (`--git-dir`).
 * Every failure becomes one ArboristError line: git's own stderr is untrusted text (a remote's messages come
 * through it), so it is reduced to one sanitised line.
 */

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** The environment git runs with: the user's (ssh keys, config), never a prompt, messages in English. */
function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    LANG: 'C',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
  };
}

/** git's stderr as one line for a message: its `fatal:`/`error:` line when it has one, sanitised and cut. */
export function gitMessage(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const pick = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[lines.length - 1] ?? '';
  const s = oneLine(redactedUrl(pick.replace(/^(fatal|error):\s*/, '')));
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

/** Runs git with `args` (and `input` on stdin); resolves with its exit code and output, never rejecting on a code. */
export function runGit(
  gitDir: string | null,
  args: readonly string[],
  input?: Buffer | string,
): Promise<GitResult> {
  const full = gitDir === null ? [...args] : [`--git-dir=${gitDir}`, ...args];
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', full, { env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      reject(noGit(err));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(noGit(e)));
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
    // A git that exits before reading all of stdin (a failure) makes the write fail: its exit code says why.
    child.stdin!.on('error', () => {});
    child.stdin!.end(input ?? '');
  });
}

function noGit(err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return new ArboristError('input', 'git is not installed or not on PATH; sync needs the git command');
  return new ArboristError('input', `cannot run git (${code ?? String(err)})`);
}

/** Runs git and returns its stdout; a non-zero exit is one ArboristError line saying `what` failed and why. */
export async function git(
  gitDir: string | null,
  args: readonly string[],
  what: string,
  input?: Buffer | string,
): Promise<Buffer> {
  const r = await runGit(gitDir, args, input);
  if (r.code !== 0)
    throw new ArboristError('input', `${what}: ${gitMessage(r.stderr) || `git exited ${r.code}`}`);
  return r.stdout;
}

/** The commit a ref points at in the mirror, or null when there is no such ref. */
export async function refCommit(gitDir: string, ref: string): Promise<string | null> {
  const r = await runGit(gitDir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.toString('utf8').trim() : null;
}

/**
 * A commit id as sync passes one to git (from for-each-ref, rev-parse, the shard's sync records): hex only, so never
 * an option or a revision expression, whatever a record holds.
 */
const COMMIT_ID = /^[0-9a-f]{4,64}$/;

/** Whether `a` is an ancestor of (or equal to) `b`; false too when either object is missing or no commit id. */
export async function isAncestor(gitDir: string, a: string, b: string): Promise<boolean> {
  if (!COMMIT_ID.test(a) || !COMMIT_ID.test(b)) return false;
  const r = await runGit(gitDir, ['merge-base', '--is-ancestor', a, b]);
  return r.code === 0;
}

/** One path's change between two commits, as `git diff-tree -r --raw -z` gives it. */
export interface TreeChange {
  status: string;
  oldBlob: string;
  newBlob: string;
  path: string;
}

const NULL_OID = /^0+$/;

/**
 * Runs git and hands its stdout to `onRecord` one NUL-terminated record at a time, as it comes: a listing of a
 * million files is never held whole (docs/sync.md, "Speed"). A non-zero exit is one ArboristError line.
 */
function gitRecords(gitDir: string, args: readonly string[], what: string, onRecord: (rec: string) => void) {
  return new Promise<void>((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', [`--git-dir=${gitDir}`, ...args], {
        env: gitEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      reject(noGit(err));
      return;
    }
    const err: Buffer[] = [];
    let rest: Buffer = Buffer.alloc(0);
    let failed: unknown = null;
    child.stdout!.on('data', (b: Buffer) => {
      if (failed !== null) return;
      let buf = rest.length > 0 ? Buffer.concat([rest, b]) : b;
      let pos = 0;
      try {
        for (let nul = buf.indexOf(0, pos); nul >= 0; nul = buf.indexOf(0, pos)) {
          onRecord(buf.toString('utf8', pos, nul));
          pos = nul + 1;
        }
      } catch (e) {
        failed = e;
      }
      // Copied: the tail would otherwise keep git's whole read buffer alive.
      buf = buf.subarray(pos);
      rest = Buffer.from(buf);
    });
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(noGit(e)));
    child.on('close', (code) => {
      if (failed !== null) reject(failed);
      else if (code !== 0)
        reject(
          new ArboristError(
            'input',
            `${what}: ${gitMessage(Buffer.concat(err).toString('utf8')) || `git exited ${code}`}`,
          ),
        );
      else resolve();
    });
  });
}

/**
 * The files changed from `from` to `to` (every file of `to`, as added, when `from` is null), handed to `onChange`
 * one at a time as git lists them. diff-tree's raw -z format: `:oldmode newmode oldsha newsha status` NUL `path`
 * NUL; ls-tree's: `mode type sha` TAB `path` NUL.
 */
export async function forEachChange(
  gitDir: string,
  from: string | null,
  to: string,
  onChange: (ch: TreeChange) => void,
): Promise<void> {
  if ((from !== null && !COMMIT_ID.test(from)) || !COMMIT_ID.test(to))
    throw new ArboristError('input', 'comparing commits: not a commit id');
  if (from === null) {
    await gitRecords(gitDir, ['ls-tree', '-r', '-z', '--full-tree', to], 'reading a commit', (rec) => {
      if (rec === '') return;
      const tab = rec.indexOf('\t');
      const [, type, sha] = rec.slice(0, tab).split(' ');
      if (type !== 'blob') return;
      onChange({ status: 'A', oldBlob: '', newBlob: sha, path: rec.slice(tab + 1) });
    });
    return;
  }
  let head: string | null = null;
  let done = false;
  await gitRecords(
    gitDir,
    ['diff-tree', '-r', '--raw', '-z', '--no-renames', from, to],
    'comparing commits',
    (rec) => {
      if (done) return;
      if (head === null) {
        if (!rec.startsWith(':')) done = true;
        else head = rec;
        return;
      }
      const [, , oldSha, newSha, status] = head.slice(1).split(' ');
      head = null;
      onChange({
        status: status.slice(0, 1),
        oldBlob: NULL_OID.test(oldSha) ? '' : oldSha,
        newBlob: NULL_OID.test(newSha) ? '' : newSha,
        path: rec,
      });
    },
  );
}

/**
 * More than any object sync reads can honestly be: a turn's fields are capped far below it (docs/sync.md, "Trust").
 * A remote's blob of gigabytes costs kilobytes to send (it compresses), so sizes are read before any bytes.
 */
export const MAX_OBJECT_BYTES = 256 * 1024 * 1024;
/** The bytes one `cat-file --batch` call may hand back at once; a batch over it is split. */
const BATCH_BYTES = 256 * 1024 * 1024;

/** An object over MAX_OBJECT_BYTES: one line naming it; sync refuses its host (pull.ts). */
export class ObjectTooBig extends ArboristError {
  constructor(
    readonly object: string,
    readonly size: number,
  ) {
    super(
      'input',
      `${object.includes(':') ? oneLine(object.slice(object.indexOf(':') + 1)) : `object ${oneLine(object.slice(0, 12))}`} is ${size.toLocaleString('en-US')} bytes, more than sync reads (${MAX_OBJECT_BYTES / 1024 / 1024} MiB)`,
    );
  }
}

/** Each name's size (`git cat-file --batch-check`), or -1 when it is missing. */
async function objectSizes(gitDir: string, names: readonly string[]): Promise<number[]> {
  const buf = await git(gitDir, ['cat-file', '--batch-check'], 'reading objects', `${names.join('\n')}\n`);
  const lines = buf.toString('utf8').split('\n');
  return names.map((_, i) => {
    const l = lines[i] ?? '';
    if (l.endsWith(' missing') || l.endsWith(' ambiguous')) return -1;
    const size = Number(l.split(' ')[2]);
    return Number.isSafeInteger(size) && size >= 0 ? size : -1;
  });
}

/**
 * The contents of objects (blob ids or `commit:path`), through `git cat-file --batch`: its output is `<oid> <type>
 * <size>` LF, the bytes, LF for each name, or `<name> missing` LF. null for a missing one. Sizes are read first
 * (`--batch-check`): an object over MAX_OBJECT_BYTES throws ObjectTooBig before anything is read, and a batch is
 * split so that no call holds more than BATCH_BYTES.
 */
export async function readObjects(gitDir: string, names: readonly string[]): Promise<(Buffer | null)[]> {
  const out: (Buffer | null)[] = [];
  const BATCH = 20_000;
  for (let at = 0; at < names.length; at += BATCH) {
    const all = names.slice(at, at + BATCH);
    const sizes = await objectSizes(gitDir, all);
    sizes.forEach((n, i) => {
      if (n > MAX_OBJECT_BYTES) throw new ObjectTooBig(all[i], n);
    });
    let from = 0;
    while (from < all.length) {
      let to = from;
      let bytes = 0;
      while (to < all.length && (to === from || bytes + Math.max(0, sizes[to]) <= BATCH_BYTES))
        bytes += Math.max(0, sizes[to++]);
      out.push(...(await readBatch(gitDir, all.slice(from, to))));
      from = to;
    }
  }
  return out;
}

async function readBatch(gitDir: string, part: readonly string[]): Promise<(Buffer | null)[]> {
  const out: (Buffer | null)[] = [];
  const buf = await git(gitDir, ['cat-file', '--batch'], 'reading objects', `${part.join('\n')}\n`);
  let pos = 0;
  for (let i = 0; i < part.length; i++) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) throw new ArboristError('input', 'reading objects: git cat-file stopped early');
    const header = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
      out.push(null);
      continue;
    }
    const size = Number(header.split(' ')[2]);
    out.push(buf.subarray(pos, pos + size));
    pos += size + 1;
  }
  return out;
}

/** A file for fastImport: its path in the tree and its bytes. */
export interface NewFile {
  path: string;
  data: Buffer;
}

/**
 * One commit written by `git fast-import` onto `ref` in the mirror (forced: the ref is the mirror's own scratch
 * ref), with `parent` as its first parent (its tree as the base) and `files` added or replaced. Returns its id.
 * One process for the whole commit however many files, fed as they come (a first push of a million turns is never
 * held in memory whole). No deltas (`--depth=0`) and fast zlib (`core.compression=1`): turns are distinct texts, so
 * a delta search cost most of the time and saved about 1% of the bytes (docs/sync.md, "Speed").
 */
export async function fastImport(
  gitDir: string,
  ref: string,
  parent: string | null,
  files: Iterable<NewFile>,
  message: string,
  who: string,
): Promise<string> {
  const args = [
    `--git-dir=${gitDir}`,
    '-c',
    'core.compression=1',
    'fast-import',
    '--quiet',
    '--force',
    '--done',
  ];
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn('git', args, { env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    throw noGit(err);
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  const closed = new Promise<number>((resolve, reject) => {
    child.on('error', (e) => reject(noGit(e)));
    child.on('close', (code) => resolve(code ?? -1));
  });
  const stdin = child.stdin!;
  let broken = false;
  stdin.on('error', () => {
    broken = true; // git stopped reading (a failure): its exit code and stderr say why
  });
  const write = async (b: Buffer | string) => {
    if (broken) return;
    if (!stdin.write(b)) await new Promise<void>((r) => (broken ? r() : stdin.once('drain', r)));
  };
  const now = Math.floor(Date.now() / 1000);
  const msg = Buffer.from(message, 'utf8');
  await write(
    `commit ${ref}\nmark :1\ncommitter arborist <${who}@arborist> ${now} +0000\ndata ${msg.length}\n`,
  );
  await write(msg);
  await write(`\n${parent ? `from ${parent}\n` : ''}`);
  for (const f of files) {
    if (broken) break;
    await write(`M 100644 inline ${f.path}\ndata ${f.data.length}\n`);
    await write(f.data);
    await write('\n');
  }
  await write('\nget-mark :1\ndone\n');
  stdin.end();
  const code = await closed;
  if (code !== 0)
    throw new ArboristError(
      'input',
      `writing the commit to push: ${gitMessage(Buffer.concat(err).toString('utf8')) || `git exited ${code}`}`,
    );
  const id = Buffer.concat(out).toString('utf8').trim().split('\n').pop() ?? '';
  if (!/^[0-9a-f]{40,64}$/.test(id))
    throw new ArboristError('input', 'writing the commit to push: git gave no commit id');
  return id;
}
