import { fileURLToPath } from 'node:url';
import { codeCacheDir, runCached } from './code-cache.js';

/**
 * dist/bundle/tui.js, which bin/arborist starts for the browser: runs the browser's bundle (tui-main.ts, built as
 * one CommonJS file beside this one by scripts/bundle.mjs) through V8's code cache (code-cache.ts), and hands
 * `--help` and `--version` to the whole CLI's bundle when the browser's says so.
 */
// Kept to node: builtins, so that this file stays a few kilobytes to load.
const browser = runCached(fileURLToPath(new URL('./tui-body.cjs', import.meta.url)), {
  cacheDir: codeCacheDir(process.env),
});
if (browser.exports.handsOverToMain === true) {
  // main.js runs its own entry on load, with the same process.argv (a URL, so the bundler leaves it a file apart).
  await import(new URL('./main.js', import.meta.url).href);
}
