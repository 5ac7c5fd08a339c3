/**
 * The runtime loads turns' details from their source records after the keystroke that asked (never inside it), and
 * the state keeps them by Bates id; a turn with no records (asked here) gets null and shows what its answer keeps.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../../src/store/testing.js';
import type { Action } from '../../src/ui/core/actions.js';
import type { Shown } from '../../src/ui/features/transcript/details.js';
import { cli } from '../support/cli.js';
import { openShard } from '../support/shard.js';
import { tempDb } from '../support/tmp.js';
import { driveRuntime } from '../support/ui-runtime.js';

const PI = fileURLToPath(new URL('../import/fixtures/pi/agent', import.meta.url));

async function until(f: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the runtime loads details', () => {
  it('after the keystroke, from the records; null for a turn asked here; edits as diff lines', async () => {
    const db = tempDb();
    expect(cli(['import', 'pi', PI, '--db', db]).code).toBe(0);
    const shard = openShard(db);
    const rows = dbOf(shard).prepare('SELECT bates, sid, answer_text FROM nodes').all() as {
      bates: string;
      sid: string;
      answer_text: string;
    }[];
    const imported = rows.find((r) => r.answer_text.startsWith('Let me look at the CI workflow.'))!;
    const edited = rows.find((r) => r.answer_text.includes('→ edit: .github/workflows/ci.yml'))!;
    const asked = shard.addTurn({ question: 'here', answer_text: 'typed here' });
    const seen: Action[] = [];
    const run = driveRuntime(shard, {}, [{ type: 'loadSessions' }], (a) => seen.push(a));
    run.rt.run([
      {
        type: 'loadDetails',
        turns: [
          { bates: imported.bates, sid: imported.sid },
          { bates: edited.bates, sid: edited.sid },
          { bates: asked.bates, sid: asked.sid },
        ],
      },
    ]);
    // Nothing read yet: the effect returns at once and the reading happens on a later turn of the loop.
    expect(seen.some((a) => a.type === 'details')).toBe(false);
    await until(() => run.state.details.has(asked.bates));
    const d = run.state.details.get(imported.bates) as Shown;
    expect(d.thinking.map((t) => t.text)).toEqual(['The CI workflow may pin another Node version.']);
    const edit = (run.state.details.get(edited.bates) as Shown).calls.find((c) => c.name === 'edit')!;
    expect(edit.diff).toEqual(['@@ -1,1 +1,1 @@', '-node-version: 18', '+node-version: 20']);
    expect(run.state.details.get(asked.bates)).toBeNull();
    const ms = seen.flatMap((a) => (a.type === 'details' && a.ms !== undefined ? [a.ms] : []));
    expect(ms.length).toBeGreaterThan(0);
  });
});
