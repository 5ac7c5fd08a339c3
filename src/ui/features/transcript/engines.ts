/**
 * The markdown parser and the highlighter, loaded on first use rather than imported: every command's bundle
 * (dist/bundle/main.js) holds the browser, and importing them there would cost each command ~100-250 ms (37
 * grammars). scripts/bundle.mjs turns these requires into the bundler's own: the commands' bundle inlines both
 * packages, evaluated only when an answer is first rendered; the browser's requires a bundle of their own beside
 * it, so that its first screen does not read them.
 */
import { createRequire } from 'node:module';
import type markdownIt from 'markdown-it';
import type * as Lowlight from './lowlight-common.js';

const require = createRequire(import.meta.url);

export function loadMarkdownIt(): typeof markdownIt {
  return require('markdown-it') as typeof markdownIt;
}

export function loadLowlight(): typeof Lowlight {
  // The bundles require ./lowlight-common.js instead (scripts/bundle.mjs): only the common grammars.
  return require('lowlight') as typeof Lowlight;
}
