/**
 * Untrusted text (answers, questions, imported transcripts) must never reach a terminal raw. This removes every
 * escape and control sequence in both the 7-bit (ESC-introduced) and 8-bit (C1) forms, other control characters,
 * and bidi overrides/isolates that can reorder what a reader sees. Used by the TUI and by the CLI's human output (src/text is shared by both and imports nothing else of arborist).
 *
 * Safe by construction: whatever the sequence passes leave behind, the last pass deletes every remaining C0 (but
 * newline and tab), DEL and C1 code point, so no introducer can survive or be re-formed by a deletion.
 */

// ESC-introduced strings (OSC, DCS, SOS, PM, APC) run to BEL or ST; C1 forms (0x90 DCS, 0x98 SOS, 0x9d OSC,
// 0x9e PM, 0x9f APC) likewise. An unterminated string is dropped to the end of the text.
const STRING_SEQ = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)/g;
// CSI: ESC [ or 0x9b, parameters, intermediates, one final byte.
const CSI_SEQ = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?/g;
// Other ESC sequences: ESC, intermediates, one final byte (e.g. ESC c reset, ESC ( B charset, ESC 7).
const ESC_SEQ = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
// Remaining C0 (except \n and \t), DEL, C1; bidi embeddings, overrides, isolates and marks; BOM.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ufeff]/g;

const TAB_STOP = 4;

export function stripControls(text: string): string {
  return text
    .toWellFormed()
    .replace(STRING_SEQ, '')
    .replace(CSI_SEQ, '')
    .replace(ESC_SEQ, '')
    .replace(/\r\n?|[\u2028\u2029\x85]/g, '\n')
    .replace(CONTROLS, '');
}

/** Tabs to spaces, to the next multiple-of-4 column (counting UTF-16 units: close enough for indentation). */
export function expandTabs(text: string): string {
  if (!text.includes('\t')) return text;
  return text
    .split('\n')
    .map((line) => {
      let out = '';
      for (const ch of line) {
        if (ch === '\t') out += ' '.repeat(TAB_STOP - (out.length % TAB_STOP));
        else out += ch;
      }
      return out;
    })
    .join('\n');
}

/** Multi-line untrusted text ready to draw: controls stripped, tabs expanded, NFC (fewer combining marks). */
export function sanitize(text: string): string {
  return expandTabs(stripControls(text)).normalize('NFC');
}

/** One line of untrusted text: controls stripped, tabs and newlines folded to single spaces. */
export function oneLine(text: string): string {
  return stripControls(text)
    .replace(/[\t\n]+/g, ' ')
    .normalize('NFC');
}

const UNSAFE_OR_BREAK = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029]/;

/**
 * True when the text holds what oneLine() would change or drop (a control, a line break, a bidi mark): for input
 * refused outright rather than shown cleaned (a sync remote's URL).
 */
export function hasUnsafe(text: string): boolean {
  return UNSAFE_OR_BREAK.test(text);
}

/**
 * oneLine() for text that was sanitised once and then passed through a parser that may have produced new code
 * points (a markdown parser decodes `&#x202e;` and friends); a no-op, without copying, when nothing is unsafe.
 */
export function safeLine(text: string): string {
  return UNSAFE_OR_BREAK.test(text) ? oneLine(text) : text;
}

/** True for a code point that must never be written to the terminal (the canvas's last line of defence). */
export function isUnsafeCodePoint(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x061c ||
    cp === 0xfeff
  );
}
