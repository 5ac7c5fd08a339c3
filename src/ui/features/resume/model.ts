/**
 * `r`: resume the selected turn in the agent it came from (Claude Code, Codex, GitHub Copilot CLI, Pi, aider:
 * docs/resume.md), the browser's side, pure. The runtime works out the plan (runtime/resume.ts, through
 * src/agent) and the overlay shows it: the agent's folder, the new session id, the lines written, the command and
 * where it runs. y/Enter writes the session and runs the agent with the terminal (the browser leaves the alternate
 * screen and comes back when it exits); the new turns are imported under the turn, from the written file, while
 * the agent runs and once it exits.
 */
import type { KeyNames } from '../../../keymap/index.js';
import { oneLine } from '../../../text/sanitize.js';
import { wrap } from '../../../text/width.js';

/** What the confirmation shows: plain data from the runtime's plan (all text raw: painters sanitise it). */
export interface ResumePreview {
  bates: string;
  /** The agent, as a person calls it ("Claude Code", "Codex"). */
  agent: string;
  sessionId: string;
  project: string;
  projectsDir: string;
  file: string;
  cwd: string;
  lines: number;
  turns: number;
  leftOut: number;
  /** The command as a shell would read it (without the cd). */
  command: string;
  /** Its program's name (argv[0]). */
  program: string;
}

export interface ResumeOverlay {
  kind: 'resume';
  bates: string;
  /** Null while the runtime works it out. */
  plan: ResumePreview | null;
  /** Set when the turn cannot be resumed: the reason, and what to do instead. */
  refusal: string | null;
  scroll: number;
}

export type ResumeAction =
  | { type: 'resumePlan'; bates: string; plan: ResumePreview }
  /** `code` is the agent layer's reason (ResumeRefusal) or 'error'. */
  | { type: 'resumeRefused'; bates: string; code: string; error: string }
  | {
      type: 'resumeDone';
      bates: string;
      program: string;
      /** How the agent ended, in a few words ("exit 0"). */
      exit: string;
      /** The turns imported from the written file, oldest first. */
      added: string[];
      /** The import after the agent exited failed (the turns may come later, the file is followed). */
      importError: string | null;
    }
  /** Nothing was run: the write or the start failed. */
  | { type: 'resumeFailed'; error: string };

export type ResumeEffect =
  | { type: 'planResume'; bates: string }
  /** Write the session confirmed (`sessionId` as shown) and run the agent on the terminal. */
  | { type: 'runResume'; bates: string; sessionId: string };

export type ResumeStyle = 'text' | 'label' | 'value' | 'dim' | 'error';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function resumeTitle(ov: ResumeOverlay): string {
  if (ov.refusal !== null) return `cannot resume ${ov.bates}`;
  return ov.plan ? `resume ${ov.bates} in ${ov.plan.agent}` : `resume ${ov.bates}`;
}

/**
 * A turn whose agent arborist cannot resume into (or a path mixing agents) is told so in the status line, in one
 * line, with no overlay: there is nothing to confirm. `ask` is named for a turn asked in arborist.
 */
export function isOneLineRefusal(code: string): boolean {
  return code === 'not_resumable' || code === 'mixed_agents';
}

/** What to say when a turn cannot be resumed; a turn asked in arborist is told about `ask`. */
export function refusalText(code: string, error: string, keyOf: KeyNames): string {
  if (code !== 'not_resumable' || !/ was asked in arborist/.test(error)) return error;
  return `${error}; ${keyOf.ask ?? 'a'} asks a follow-up`;
}

/** The overlay's lines at `width` cells, all text sanitised. */
export function resumeLines(ov: ResumeOverlay, width: number): { t: string; k: ResumeStyle }[] {
  const w = Math.max(8, width);
  const out: { t: string; k: ResumeStyle }[] = [];
  const para = (text: string, k: ResumeStyle) => {
    for (const l of wrap(oneLine(text), w)) out.push({ t: l, k });
  };
  if (ov.refusal !== null) {
    para(ov.refusal, 'error');
    out.push({ t: '', k: 'text' });
    para('Nothing was written.', 'dim');
    return out;
  }
  const p = ov.plan;
  if (!p) {
    para('working out the session…', 'dim');
    return out;
  }
  para(
    `Continue this conversation in ${p.agent} from the end of this turn: its path is written as a new session.`,
    'text',
  );
  out.push({ t: '', k: 'text' });
  const labelW = 9;
  const row = (label: string, value: string) => {
    const lines = wrap(oneLine(value), Math.max(4, w - labelW));
    lines.forEach((l, i) => {
      out.push({
        t: `${i === 0 ? label.padEnd(labelW) : ' '.repeat(labelW)}${l}`,
        k: i === 0 ? 'label' : 'value',
      });
    });
  };
  // Claude Code's folder is its project; the others' is a date (Codex) or the session (Copilot).
  row(p.agent === 'Claude Code' ? 'project' : 'folder', `${p.project}  (in ${p.projectsDir})`);
  row('session', `${p.sessionId} (new)`);
  const left = p.leftOut > 0 ? `; ${plural(p.leftOut, 'line')} of other branches left out` : '';
  row('writes', `${plural(p.lines, 'line')} from ${plural(p.turns, 'turn')}${left}`);
  row('file', p.file);
  row('runs', p.command);
  row('in', p.cwd);
  out.push({ t: '', k: 'text' });
  para(
    `arborist leaves the screen while ${p.program} runs and comes back when it exits; its new turns appear under ${p.bates}.`,
    'dim',
  );
  para('One audit event (session.resume). Nothing is written until you confirm.', 'dim');
  return out;
}
