/** The one-line text box of the question box and the find box: what an editing key does to its text. */
import type { KeyAction } from '../../keymap/index.js';
import { oneLine } from '../../text/sanitize.js';

/**
 * The text after an editing key (keymap rules text.delete, text.clear, text.word, text.insert), or null when the
 * key changes nothing (not an editing key, an empty box, a full one, or a character that sanitises to nothing).
 */
export function editText(text: string, id: KeyAction, ch: string | undefined, max: number): string | null {
  switch (id) {
    case 'text.delete':
      return text === '' ? null : [...text].slice(0, -1).join('');
    case 'text.clear':
      return text === '' ? null : '';
    case 'text.word':
      return text === '' ? null : text.replace(/\S*\s*$/, '');
    case 'text.insert': {
      // Pasted text arrives as keys too: controls and newlines never reach the box.
      const clean = oneLine(ch ?? '');
      return clean === '' || text.length > max ? null : text + clean;
    }
    default:
      return null;
  }
}
