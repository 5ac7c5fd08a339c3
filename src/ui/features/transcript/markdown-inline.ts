/**
 * A markdown paragraph's inline tokens (markdown-it's children of an `inline` token) as styled runs: emphasis,
 * strong, strikethrough, inline code, links with their address, hard breaks. The block layout (markdown.ts) places
 * the lines this returns; every text piece goes through safeLine(), as the parser decodes entities.
 */
import type { Token } from 'markdown-it';
import { safeLine } from '../../../text/sanitize.js';
import type { Run } from '../../../text/width.js';
import { Style } from '../../term/canvas.js';

/** A run of text in one style. */
export type Span = Run<Style>;

/** A paragraph's inline tokens as runs, split at hard breaks into lines of runs. */
export function inlineRuns(children: readonly Token[] | null, base: Style): Span[][] {
  const lines: Span[][] = [[]];
  let strong = 0;
  let em = 0;
  let strike = 0;
  const links: string[] = [];
  const style = (): Style => {
    if (links.length > 0) return Style.mdLink;
    if (base !== Style.normal) return base;
    if (strong > 0) return Style.mdStrong;
    if (em > 0) return Style.mdEm;
    if (strike > 0) return Style.dim;
    return Style.normal;
  };
  const push = (s: string, st: Style): void => {
    if (s !== '') lines[lines.length - 1].push([safeLine(s), st]);
  };
  let linkText = '';
  for (const t of children ?? []) {
    switch (t.type) {
      case 'text':
        push(t.content, style());
        if (links.length > 0) linkText += t.content;
        break;
      case 'code_inline':
        push(t.content, base === Style.normal ? Style.mdCode : base);
        if (links.length > 0) linkText += t.content;
        break;
      // A line break inside a paragraph stays one (as GitHub shows comments): answers are written line by line.
      case 'softbreak':
      case 'hardbreak':
        lines.push([]);
        break;
      case 'strong_open':
        strong++;
        break;
      case 'strong_close':
        strong--;
        break;
      case 'em_open':
        em++;
        break;
      case 'em_close':
        em--;
        break;
      case 's_open':
        strike++;
        break;
      case 's_close':
        strike--;
        break;
      case 'link_open':
        links.push(t.markup === 'autolink' ? '' : safeLine(String(t.attrGet('href') ?? '')));
        linkText = '';
        break;
      case 'link_close': {
        const href = links.pop() ?? '';
        // The address after the text, unless the text already is the address.
        if (href !== '' && href !== linkText && href !== `mailto:${linkText}`)
          push(` (${href})`, Style.mdUrl);
        break;
      }
      case 'image': {
        const alt =
          t.children && t.children.length > 0 ? t.children.map((c) => c.content).join('') : t.content;
        push(`[image: ${alt}]`, Style.mdLink);
        const src = safeLine(String(t.attrGet('src') ?? ''));
        if (src !== '') push(` (${src})`, Style.mdUrl);
        break;
      }
      default:
        // html_inline does not occur (html is off); anything else a plugin might add shows as its text.
        push(t.content, style());
    }
  }
  return lines;
}

/** A task box at the start of a list item's text (`[ ]`, `[x]`), taken off the runs. */
export function taskBox(runs: Span[]): string | null {
  const first = runs[0];
  if (!first) return null;
  const m = /^\[([ xX])\] /.exec(first[0]);
  if (!m) return null;
  runs[0] = [first[0].slice(4), first[1]];
  return m[1] === ' ' ? '☐ ' : '☑ ';
}
