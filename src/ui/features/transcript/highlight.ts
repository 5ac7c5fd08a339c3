/**
 * Fenced code coloured by its language: highlight.js's grammars through lowlight, which returns a token tree (hast)
 * rather than HTML, so nothing has to be parsed back out of markup. Only the tree's text nodes are kept, and they
 * are pieces of the code we passed in (already sanitised): the highlighter adds classes, never text or escapes.
 * The grammars are compiled on the first code block, not at start-up.
 */
import type { createLowlight } from 'lowlight';
import type { Run } from '../../../text/width.js';
import { Style } from '../../term/canvas.js';
import { loadLowlight } from './engines.js';

/** Past this many UTF-16 units a block is shown as plain code: highlight.js takes ~30-90 µs a line, and a
 * 100,000-line block would hold the screen for seconds. */
export const HIGHLIGHT_MAX = 64 * 1024;

let lowlight: ReturnType<typeof createLowlight> | null = null;

/** The parts of a hast node we read: text nodes' values and elements' classes and children; anything else is
 * skipped. */
interface HNode {
  type: string;
  value?: string;
  children?: HNode[];
  properties?: { className?: unknown };
}

/** highlight.js scopes (the class after `hljs-`, and sub-scopes such as `function_`) to styles. */
const SCOPE: Record<string, Style> = {
  keyword: Style.hlKeyword,
  'selector-tag': Style.hlKeyword,
  literal: Style.hlNumber,
  number: Style.hlNumber,
  string: Style.hlString,
  regexp: Style.hlString,
  char: Style.hlString,
  comment: Style.hlComment,
  quote: Style.hlComment,
  doctag: Style.hlComment,
  title: Style.hlTitle,
  section: Style.hlTitle,
  name: Style.hlTitle,
  type: Style.hlType,
  built_in: Style.hlType,
  class: Style.hlType,
  attr: Style.hlAttr,
  attribute: Style.hlAttr,
  property: Style.hlAttr,
  variable: Style.hlAttr,
  'template-variable': Style.hlAttr,
  params: Style.mdCodeText,
  meta: Style.hlMeta,
  symbol: Style.hlMeta,
  tag: Style.hlMeta,
  bullet: Style.hlMeta,
  addition: Style.hlAdd,
  deletion: Style.hlDel,
};

function scopeStyle(el: HNode, inherited: Style): Style {
  const cls = el.properties?.className;
  if (!Array.isArray(cls)) return inherited;
  for (const c of cls) {
    if (typeof c !== 'string' || !c.startsWith('hljs-')) continue;
    const st = SCOPE[c.slice(5)];
    if (st !== undefined) return st;
  }
  return inherited;
}

/** True when `lang` (an info string's first word, any case) names a grammar we have. */
export function knownLanguage(lang: string): boolean {
  if (lang === '') return false;
  if (!lowlight) {
    const { common, createLowlight } = loadLowlight();
    lowlight = createLowlight(common);
  }
  return lowlight.registered(lang.toLowerCase());
}

/**
 * The code's lines as styled runs, or null when the language is unknown or the block too long (the caller shows
 * it as plain code). Never guesses a language: auto-detection runs every grammar over the block.
 */
export function highlightLines(lang: string, code: string): Run<Style>[][] | null {
  if (code.length > HIGHLIGHT_MAX || !knownLanguage(lang)) return null;
  let tree: HNode;
  try {
    tree = lowlight!.highlight(lang.toLowerCase(), code) as HNode;
  } catch {
    return null;
  }
  const lines: Run<Style>[][] = [[]];
  // Depth-first over the tree without recursion (grammars nest, a hostile block could nest deeply).
  const stack: [HNode[], number, Style][] = [[tree.children ?? [], 0, Style.mdCodeText]];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [nodes, i, style] = top;
    if (i >= nodes.length) {
      stack.pop();
      continue;
    }
    top[1] = i + 1;
    const node = nodes[i];
    if (node.type === 'text' && typeof node.value === 'string') {
      const parts = node.value.split('\n');
      for (let k = 0; k < parts.length; k++) {
        if (k > 0) lines.push([]);
        if (parts[k] !== '') lines[lines.length - 1].push([parts[k], style]);
      }
    } else if (node.type === 'element' && node.children)
      stack.push([node.children, 0, scopeStyle(node, style)]);
  }
  return lines;
}
