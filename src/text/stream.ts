import { stripControls } from './sanitize.js';

/**
 * stripControls for text that arrives in pieces (a streamed answer): an escape sequence may be split across two
 * chunks, and each half on its own looks harmless or gets half-removed ("\x1b[" then "2J" would print "2J"). This
 * holds back the tail of a chunk from the start of a sequence that has not ended yet (and a lone CR or a high
 * surrogate, whose meaning depends on what follows), and sanitises everything before it with the same rules as
 * the whole text. end() flushes what is held: an unterminated sequence is dropped, as stripControls drops it.
 */
export class StreamSanitizer {
  private held = '';

  write(chunk: string): string {
    const text = this.held + chunk;
    const cut = safeCut(text);
    this.held = text.slice(cut);
    return cut === 0 ? '' : stripControls(text.slice(0, cut));
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest === '' ? '' : stripControls(rest);
  }
}

const ESC = 0x1b;
/** C1 introducers of strings that run to a terminator: DCS, SOS, OSC, PM, APC. */
const C1_STRING = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const CSI_8BIT = 0x9b;

/**
 * The length of the longest prefix of `text` that ends outside any escape sequence, using the same grammar as
 * stripControls: strings (OSC, DCS, SOS, PM, APC) end at BEL, ESC \ or ST (0x9c); CSI is parameters 0x30-0x3f,
 * intermediates 0x20-0x2f and a final byte; other ESC sequences are intermediates and a final byte.
 */
function safeCut(text: string): number {
  let start = -1; // where the open sequence began, or -1
  let state: 'text' | 'esc' | 'csi' | 'string' | 'string-esc' = 'text';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    switch (state) {
      case 'text':
        if (c === ESC) {
          state = 'esc';
          start = i;
        } else if (C1_STRING.has(c)) {
          state = 'string';
          start = i;
        } else if (c === CSI_8BIT) {
          state = 'csi';
          start = i;
        }
        break;
      case 'esc':
        if (c === 0x5b) state = 'csi';
        else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) state = 'string';
        else if (c >= 0x20 && c <= 0x2f) state = 'esc';
        else {
          state = 'text'; // final byte, or anything else ends the sequence (as the regex's optional final)
          if (c === ESC || C1_STRING.has(c) || c === CSI_8BIT) i--; // a new introducer: look at it again
        }
        break;
      case 'csi':
        if ((c >= 0x30 && c <= 0x3f) || (c >= 0x20 && c <= 0x2f)) break;
        state = 'text';
        if (c === ESC || C1_STRING.has(c) || c === CSI_8BIT) i--;
        break;
      case 'string':
        if (c === 0x07 || c === 0x9c) state = 'text';
        else if (c === ESC) state = 'string-esc';
        break;
      case 'string-esc':
        state = c === 0x5c ? 'text' : c === ESC ? 'string-esc' : 'string';
        break;
    }
  }
  if (state !== 'text') return start;
  const last = text.charCodeAt(text.length - 1);
  if (last === 0x0d || (last >= 0xd800 && last <= 0xdbff)) return text.length - 1;
  return text.length;
}
