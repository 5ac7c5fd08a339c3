/**
 * The key map is data: the rebindable actions (actions.ts), what keys mean per context (contexts.ts), a user's
 * keys.json applied to both (keymap.ts), and the help and docs/keys.md generated from the same tables (help.ts).
 */

export { ACTIONS, type ActionDef, type ActionId, type Group, type KeyNames } from './actions.js';
export {
  type ArgKind,
  COMMANDS,
  type CommandDef,
  type CommandMode,
  type CommandName,
  type Completion,
  type CompletionSource,
  commandHelp,
  commandPrefix,
  complete,
  completeLine,
  findCommand,
  type ParsedLine,
  parseCommandLine,
  unknownCommand,
  usageOf,
} from './commands.js';
export { CONTEXTS, type Context, type KeyAction, type Rule } from './contexts.js';
export { COMMANDS_GROUP, type HelpGroupRows, helpRows, keysMarkdown } from './help.js';
export { type Binding, buildKeymap, type Keymap, KeymapError, parseKeysJson } from './keymap.js';
export { isValidKey, prettyKey } from './names.js';
