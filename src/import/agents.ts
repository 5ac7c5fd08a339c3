import type { SourceKind } from './model.js';

/**
 * Each source's name and badge alone, without its reader: the browser's sessions pane shows the badges on its first
 * screen, and loading sources.ts would run every reader's module there (the browser's bundle keeps them unrun until
 * an import). sources.ts takes its names and badges from here.
 */
export interface AgentInfo {
  /** What a person calls it. */
  readonly name: string;
  /** A short tag for narrow places (the browser's sessions pane, find's hits). */
  readonly badge: string;
}

export const AGENTS: { readonly [K in SourceKind]: AgentInfo } = {
  claude: { name: 'Claude Code', badge: 'CC' },
  openclaw: { name: 'OpenClaw', badge: 'OC' },
  llm: { name: 'llm', badge: 'llm' },
  codex: { name: 'Codex CLI', badge: 'CX' },
  gemini: { name: 'Gemini CLI', badge: 'GM' },
  copilot: { name: 'GitHub Copilot CLI', badge: 'GH' },
  opencode: { name: 'OpenCode', badge: 'OP' },
  pi: { name: 'Pi', badge: 'PI' },
  aider: { name: 'aider', badge: 'AD' },
  arborist: { name: 'arborist export', badge: 'AR' },
};
