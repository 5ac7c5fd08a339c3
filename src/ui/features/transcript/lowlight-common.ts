/**
 * lowlight with its common grammars only, behind a module of ours: engines.ts requires this, and a named import
 * here lets the bundler drop lowlight's `all` (190 grammars), which requiring lowlight itself would pull in.
 */
export { common, createLowlight } from 'lowlight';
