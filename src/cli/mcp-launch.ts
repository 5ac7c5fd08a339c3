import { fileURLToPath } from 'node:url';
import { codeCacheDir, runCached } from './code-cache.js';

/**
 * dist/bundle/mcp.js, which bin/arborist starts for `arborist mcp`: runs the server's bundle (mcp-main.ts, built as
 * one CommonJS file beside this one, the MCP SDK and zod inlined) through V8's code cache (code-cache.ts), as the
 * browser's launcher does: compiling that 1.7 MB file was most of the server's start-up.
 */
// Kept to node: builtins, so that this file stays a few kilobytes to load.
runCached(fileURLToPath(new URL('./mcp-body.cjs', import.meta.url)), { cacheDir: codeCacheDir(process.env) });
