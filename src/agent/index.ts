/**
 * The real agent (docs/resume.md): continue a Claude Code conversation from any imported turn. A session is
 * planned from the shard's source records (plan.ts), written with its audit event (write.ts), run on the
 * terminal (run.ts), and what the agent appends comes back through the Claude Code importer (follow.ts).
 * The CLI (`arborist resume`) and the TUI (`r`) use only this module.
 */
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
} from './plan.js';
export { type AgentExit, type AgentRun, describeExit, startAgent } from './run.js';
export { type Written, writeResume } from './write.js';
