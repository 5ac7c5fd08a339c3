/** From the terminal to the keymap: the user's keys.json, and blessed's key events as our key names. */
import { readKeysFile } from '../../config/index.js';
import { buildKeymap, type Keymap, KeymapError, parseKeysJson } from '../../keymap/index.js';
import { ArboristError } from '../../store/index.js';

/** Loads the key map (keys.json read by src/config), or explains in one line why not. */
export function loadKeymap(path: string): Keymap {
  let text: string | undefined;
  try {
    text = readKeysFile(path);
  } catch (err) {
    throw err instanceof ArboristError ? new KeymapError(err.message) : err;
  }
  return text === undefined ? buildKeymap({}, path) : buildKeymap(parseKeysJson(text, path), path);
}

export interface BlessedKey {
  name?: string;
  full?: string;
  ctrl?: boolean;
  meta?: boolean;
}

/** Normalises blessed's (ch, key) into our key names: printable characters as themselves, else key.full. */
export function keyName(ch: string | undefined, key: BlessedKey): { key: string; ch?: string } | null {
  if (key.name === 'return') return null; // blessed reports Enter twice (enter + return)
  const printable =
    ch !== undefined && ch.length > 0 && !key.ctrl && !key.meta && !/[\x00-\x1f\x7f]/.test(ch);
  if (printable && ch === ' ') return { key: 'space', ch };
  if (printable && [...ch].length === 1 && key.name !== 'enter' && key.name !== 'tab') return { key: ch, ch };
  if (key.full) return { key: key.full, ch: printable ? ch : undefined };
  if (printable) return { key: ch, ch };
  return null;
}
