/**
 * The real agent (docs/resume.md): continue a conversation in the agent it came from (Claude Code, Codex, GitHub
 * Copilot CLI, Pi, aider), from any imported turn. A session is planned from the shard's source records (plan.ts, with
 * the agent's adapter: adapters.ts), written with its audit event (write.ts), run on the terminal (run.ts), and
 * what the agent appends comes back through that agent's importer (follow.ts). The CLI (`arborist resume`) and
 * the TUI (`r`) use only this module.
 */

export { adapterOf, RESUME, RESUMING_KINDS } from './adapters.js';
export { rolloutStamp } from './codex.js';
export {
  commandLine,
  DEFAULT_COMMAND,
  fillCommand,
  findExecutable,
  loadResumeConfig,
  type ResumeConfig,
  shellPath,
  shellQuote,
} from './command.js';
export { followTranscripts, type ImportSummary, importTranscript, type UnitSummary } from './follow.js';
export { type Rewritten, withSessionId } from './lines.js';
export {
  claudeProjectsDir,
  type PlanOptions,
  planResume,
  projectFolderFor,
  ResumeError,
  type ResumePlan,
  type ResumeRefusal,
  type ResumeTurn,
  resumerOf,
} from './plan.js';
export { type AgentExit, type AgentRun, describeExit, startAgent } from './run.js';
export { type Written, writeResume } from './write.js';
