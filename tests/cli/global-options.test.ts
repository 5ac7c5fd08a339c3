import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * The options every command takes (--db, --json, --no-color, --durable) may come before the command, as with git:
 * `arborist --db X list` was "unexpected argument 'list'" (exit 2) because a first word starting with '-' opened
 * the browser's entry point.
 */
describe('options before the command', () => {
  it('arborist --db X --json COMMAND is arborist COMMAND --db X --json, in each entry point', () => {
    const db = tempDb();
    const made = cli(['new', '--label', 'first', '--db', db, '--json']);
    expect(made.code, made.stderr).toBe(0);
    const before = cli(['--db', db, '--json', 'list']);
    expect(before.code, before.stderr).toBe(0);
    expect(before.json()).toEqual(cli(['list', '--db', db, '--json']).json());
    const eq = cli([`--db=${db}`, 'list', '--json']);
    expect(eq.code, eq.stderr).toBe(0);
    expect(eq.json()[0].label).toBe('first');
    // status and mcp have entry points of their own
    const status = cli(['--db', db, 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().ok).toBe(true);
    const mcp = cli(['--db', db, 'mcp'], {
      input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list', arguments: {} } })}\n`,
    });
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(mcp.stdout).toContain('first');
  });

  it('an unknown word after them is still an unknown command, exit 2', () => {
    const db = tempDb();
    const r = cli(['--db', db, 'lsit']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("arborist: unknown command 'lsit' (did you mean 'list'? see arborist --help)\n");
  });
});
