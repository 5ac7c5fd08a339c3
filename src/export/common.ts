import type { Session } from '../store/index.js';
import { oneLine } from '../text/sanitize.js';
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
