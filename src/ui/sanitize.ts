/**
 * Untrusted text (answers, questions, imported transcripts) must never reach a terminal raw. This removes every
 * escape and control sequence in both the 7-bit (ESC-introduced) and 8-bit (C1) forms, other control characters,
 * and bidi overrides/isolates that can reorder what a reader sees. Used by the TUI widgets and the CLI's human output.
 */

// ESC-introduced strings (OSC, DCS, SOS, PM, APC) run to BEL or ST; C1 forms (0x90 DCS, 0x98 SOS, 0x9d OSC,
// 0x9e PM, 0x9f APC) likewise. An unterminated string is dropped to the end of the text.
const STRING_SEQ = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)/g;
// CSI: ESC [ or 0x9b, parameters, intermediates, one final byte.
const CSI_SEQ = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?/g;
// Other ESC sequences: ESC, intermediates, one final byte (e.g. ESC c reset, ESC ( B charset, ESC 7).
const ESC_SEQ = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
// Remaining C0 (except \n and \t), DEL, C1, and bidi embedding/override/isolate controls.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

export function stripControls(text: string): string {
  return text
    .replace(STRING_SEQ, '')
    .replace(CSI_SEQ, '')
    .replace(ESC_SEQ, '')
    .replace(/\r\n?/g, '\n')
    .replace(CONTROLS, '');
}

/** One line of untrusted text: controls stripped, tabs and newlines folded to spaces. */
export function oneLine(text: string): string {
  return stripControls(text).replace(/[\t\n]+/g, ' ');
}

/** Escapes blessed's tag syntax so `{bold}` in an answer is shown, not interpreted. */
export function escapeTags(text: string): string {
  return text.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

/** For widgets that render tags: strip controls, expand tabs, escape tags. */
export function sanitizeForWidget(text: string): string {
  return escapeTags(stripControls(text).replace(/\t/g, '  '));
}
