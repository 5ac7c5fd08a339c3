/**
 * The browser's separate bundle of the markdown parser and the highlighter (md-engines.cjs beside the browser's
 * bundle, made by scripts/bundle.mjs): kept out of the browser's own bundle, whose every byte is read and checked on each start,
 * and required by engines.ts when an answer is first rendered (or in a quiet moment before).
 */

export { common, createLowlight } from 'lowlight';
export { default as markdownIt } from 'markdown-it';
