import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import { start } from '../tui/helpers.js';

/**
 * `arborist mcp` run by hand at a terminal waited on a blank screen, as if it hung: a person trying it out had no
 * way to know it was a server waiting for a client. At a terminal it now says so on stderr; with pipes (an agent)
 * stderr stays empty.
 */
describe('arborist mcp at a terminal', () => {
  it('says what it is and how to leave; Ctrl-D ends it with exit 0', async () => {
    const db = tempDb();
    cli(['new', '--db', db]);
    const t = await start({
      db,
      command: ['mcp'],
      cols: 100,
      rows: 10,
      ready: 'arborist mcp: an MCP server on stdin/stdout, for an agent to start',
    });
    expect(t.screen()).toContain('Ctrl-D ends');
    t.type('\x04');
    expect((await t.close()).code).toBe(0);
  });

  it('says nothing on stderr when an agent starts it with pipes', () => {
    const db = tempDb();
    cli(['new', '--db', db]);
    const r = cli(['mcp', '--db', db], { input: '' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('');
  });
});
