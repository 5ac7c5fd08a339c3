/**
 * Which agents arborist resumes into, one entry per source: an adapter (what it writes where, the command, the
 * reader that brings the agent's new turns back), or the one line that says why not. A mapped type over
 * SourceKind, so a new source does not compile until it says whether it resumes (docs/resume.md has the table).
 */
import type { SourceKind } from '../import/model.js';
import { aiderResume } from './aider.js';
import { claudeResume } from './claude.js';
import { codexResume } from './codex.js';
import { copilotResume } from './copilot.js';
import { piResume } from './pi.js';
import type { Resumability, ResumeAdapter } from './types.js';

export const RESUME: { readonly [K in SourceKind]: Resumability } = {
  claude: claudeResume,
  codex: codexResume,
  gemini: {
    resumes: false,
    name: 'Gemini CLI',
    why: 'gemini --session-file copies the messages into a new session of its own, whose turns would import as new turns, not under this one',
  },
  copilot: copilotResume,
  pi: piResume,
  opencode: {
    resumes: false,
    name: 'OpenCode',
    why: "OpenCode resumes only sessions in its own database, and arborist never writes another tool's store",
  },
  aider: aiderResume,
  openclaw: {
    resumes: false,
    name: 'OpenClaw',
    why: "OpenClaw's sessions are kept by its gateway (sessions.json or its database), which arborist never writes",
  },
  llm: {
    resumes: false,
    name: 'llm',
    why: 'llm continues a conversation only from its own logs.db, which arborist never writes',
  },
  arborist: {
    resumes: false,
    name: 'an arborist export',
    why: 'an arborist export has no agent to resume into',
  },
};

/** The agents that resume, by kind (config.json's `resume.<kind>` sections are these). */
export const RESUMING_KINDS = (Object.keys(RESUME) as SourceKind[]).filter((k) => RESUME[k].resumes);

export function adapterOf(kind: SourceKind): ResumeAdapter | undefined {
  const r = RESUME[kind];
  return r.resumes ? r : undefined;
}
