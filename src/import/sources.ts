import { AGENTS, type AgentInfo } from './agents.js';
import { aiderReader } from './aider/index.js';
import { arboristReader } from './arborist/index.js';
import { makeClaudeReader } from './claude/index.js';
import { codexReader } from './codex/index.js';
import { copilotReader } from './copilot/index.js';
import { geminiReader } from './gemini/index.js';
import { llmReader } from './llm/index.js';
import type { SourceKind, SourceReader } from './model.js';
import { openclawReader } from './openclaw/index.js';
import { opencodeReader } from './opencode/index.js';
import { piReader } from './pi/index.js';

/**
 * The sources arborist reads, one entry each: what a person calls it, its badge, where it keeps its history, its
 * reader. `arborist import`'s usage and help, the first start's offer, `import` with no kind, and the README's
 * table of sources come from this table (tests/import/sources.test.ts keeps the README's copy the same). The type
 * is a mapped one over SourceKind, so a kind without its entry does not compile. Adding a source: its folder under
 * src/import/, its kind in SourceKind, its entry here, its facts in docs/import.md.
 */

export interface ReaderOptions {
  /** Claude Code: import subagent and sidechain branches (default) or leave them out. */
  sidechains: boolean;
}

/** A source: its name and badge (agents.ts) and where it reads. */
export interface SourceInfo extends AgentInfo {
  /** Where it keeps its history, for `import`'s help and the README: the defaults and their overrides. */
  readonly where: string;
  /**
   * Looked for on this machine on first start and by `arborist import` with no kind. False for a source with no
   * place of its own (an arborist export, a file given by name).
   */
  readonly findable: boolean;
  readonly reader: (opts: ReaderOptions) => SourceReader;
}

export const SOURCES: { readonly [K in SourceKind]: SourceInfo } = {
  claude: {
    ...AGENTS.claude,
    where:
      '`~/.claude/projects` and `~/.config/claude/projects` (`CLAUDE_CONFIG_DIR`); transcripts, subagents',
    findable: true,
    reader: (o) => makeClaudeReader({ sidechains: o.sidechains }),
  },
  openclaw: {
    ...AGENTS.openclaw,
    where:
      '`~/.openclaw` (`OPENCLAW_STATE_DIR`): transcripts, `sessions.json`, reset/deleted archives, the agent SQLite file',
    findable: true,
    reader: () => openclawReader,
  },
  llm: {
    ...AGENTS.llm,
    where: "llm's `logs.db` in its user folder (`LLM_USER_PATH`), opened read-only",
    findable: true,
    reader: () => llmReader,
  },
  codex: {
    ...AGENTS.codex,
    where:
      '`~/.codex` (`CODEX_HOME`): rollouts in `sessions/` and `archived_sessions/`, plain or `.jsonl.zst`',
    findable: true,
    reader: () => codexReader,
  },
  gemini: {
    ...AGENTS.gemini,
    where:
      '`~/.gemini/tmp/*/chats` (`GEMINI_CLI_HOME`): `session-*.json` and `.jsonl` chats, subagent chats; a `logs.json` when named',
    findable: true,
    reader: () => geminiReader,
  },
  copilot: {
    ...AGENTS.copilot,
    where:
      '`~/.copilot` (`COPILOT_HOME`; before 1.0 `$XDG_STATE_HOME/.copilot`): `session-state` event logs, legacy `history-session-state`',
    findable: true,
    reader: () => copilotReader,
  },
  opencode: {
    ...AGENTS.opencode,
    where:
      '`~/.local/share/opencode` (`XDG_DATA_HOME`, `OPENCODE_DB`): `storage/` JSON files and `opencode.db`, opened read-only',
    findable: true,
    reader: () => opencodeReader,
  },
  pi: {
    ...AGENTS.pi,
    where:
      '`~/.pi/agent/sessions` (`PI_CODING_AGENT_DIR`): one JSONL file a session, forks linked to their parent',
    findable: true,
    reader: () => piReader,
  },
  aider: {
    ...AGENTS.aider,
    where:
      "nowhere by default: give projects' `.aider.chat.history.md` files (or the `--chat-history-file`), or folders to walk for them",
    findable: false,
    reader: () => aiderReader,
  },
  arborist: {
    ...AGENTS.arborist,
    where: 'a JSON export of another shard (`arborist export --format json`), given by name',
    findable: false,
    reader: () => arboristReader,
  },
};

/** The kinds, in the table's order. */
export const SOURCE_KINDS = Object.keys(SOURCES) as SourceKind[];

export function isSourceKind(kind: string): kind is SourceKind {
  return Object.hasOwn(SOURCES, kind);
}

/** The README's table of sources. */
export function sourcesMarkdown(): string {
  const rows = SOURCE_KINDS.map((k) => {
    const s = SOURCES[k];
    return `| \`${k}\` | ${s.name} | ${s.badge} | ${s.where} |`;
  });
  return ['| kind | source | badge | where it reads by default |', '|---|---|---|---|', ...rows].join('\n');
}
