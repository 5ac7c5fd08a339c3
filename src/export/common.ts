import type { Session } from '../store/index.js';
import { oneLine, stripControls } from '../text/sanitize.js';
import { truncate } from '../text/width.js';
import type { Selection } from './select.js';

/** What the human formats (markdown, HTML) share: the title, the tree's indentation limit, previews. */

/** Levels drawn as nesting; deeper turns say their depth instead, so a 10,000-deep chain stays readable. */
export const MAX_NESTING = 24;

/** Characters of a question shown in the tree view. */
export const PREVIEW_CHARS = 100;

/** "path to aaaa-000003", "subtree of ...", "session aaaa": stored ids, so cleaned of controls. */
export function selectionTitle(sel: Selection): string {
  const id = oneLine(sel.id);
  if (sel.kind === 'path') return `path to ${id}`;
  if (sel.kind === 'subtree') return `subtree of ${id}`;
  return `session ${id}`;
}

/** The first words of a question, on one line, controls stripped. */
export function preview(question: string): string {
  return truncate(oneLine(question).trim(), PREVIEW_CHARS);
}

/** A depth drawn as at most MAX_NESTING levels; the rest is written out ("+3"). */
export function nesting(depth: number): { level: number; extra: number } {
  return depth <= MAX_NESTING
    ? { level: depth, extra: 0 }
    : { level: MAX_NESTING, extra: depth - MAX_NESTING };
}

/** The sessions as people read them: a session export's own session first, then the ones it has context from. */
export function displaySessions(sel: Selection): { session: Session; context: boolean }[] {
  const isContext = (s: Session) => sel.kind === 'session' && s.sid !== sel.id;
  return [...sel.sessions.filter((s) => !isContext(s)), ...sel.sessions.filter(isContext)].map((session) => ({
    session,
    context: isContext(session),
  }));
}

// Every code point stripControls acts on (ESC and the other C0 controls but tab and newline, CR, DEL, C1, NEL, bidi
// controls, the line and paragraph separators, the BOM). Text without any, and well formed, it returns unchanged:
// most stored text, so the test below saves the sanitiser's five passes on nearly every turn of a big export.
const TOUCHED = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/;

/** stripControls (src/text), skipped when it would change nothing. */
export function clean(text: string): string {
  return TOUCHED.test(text) || !text.isWellFormed() ? stripControls(text) : text;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** oneLine (src/text), skipped for printable ASCII (ids, hashes, times), which it would return unchanged. */
export function line(text: string): string {
  return PRINTABLE_ASCII.test(text) ? text : oneLine(text);
}
