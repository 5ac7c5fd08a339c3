// tui.ts (not ours to edit now) still imports the type from here; it can import './command.js' and this go.
export type { Command } from './command.js';
