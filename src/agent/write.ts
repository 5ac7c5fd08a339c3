/**
 * Writing a planned session: a new file in Claude Code's projects folder (folder 0700 when made here, file 0600,
 * created with O_EXCL so an existing file is never touched), and the one `session.resume` audit event. The file is
 * written inside the event's transaction: a commit that fails removes the file again, so the chain never names a
 * file that is not there (a crash between the two can leave a file the chain does not name; never the reverse).
 */
import { closeSync, fchmodSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ArboristError, recordResume, type Shard } from '../store/index.js';
import type { ResumePlan } from './plan.js';

export interface Written {
  file: string;
  lines: number;
  bytes: number;
  /** The audit event's seq. */
  event: number;
}

function writeExclusive(file: string, data: Buffer, onCreated: () => void): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new ArboristError('input', `${file} already exists: it was not changed`);
    throw new ArboristError('input', `cannot create ${file} (${code ?? 'error'})`);
  }
  onCreated();
  try {
    fchmodSync(fd, 0o600); // whatever the umask
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ArboristError('input', `cannot write ${file} (${code ?? 'error'})`);
  } finally {
    closeSync(fd);
  }
}

export function writeResume(shard: Shard, plan: ResumePlan): Written {
  const dir = dirname(plan.file);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ArboristError('input', `cannot create ${dir} (${code ?? 'error'})`);
  }
  const data = Buffer.from(`${plan.lines.join('\n')}\n`, 'utf8');
  let created = false;
  try {
    const event = shard.write(() => {
      writeExclusive(plan.file, data, () => {
        created = true;
      });
      return recordResume(shard, {
        source_bates: plan.source_bates,
        new_session_id: plan.session_id,
        file: plan.file,
        lines: plan.lines.length,
      });
    });
    return { file: plan.file, lines: plan.lines.length, bytes: data.length, event };
  } catch (err) {
    if (created) {
      try {
        unlinkSync(plan.file);
      } catch {
        // already gone
      }
    }
    throw err;
  }
}
