import { type Shard, Shard as ShardClass } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';

/** Terminal attacks, markup that would run in a browser, bidi tricks and backtick runs, in one question. */
export const HOSTILE_Q =
  'Evil \x1b[31mred\x1b[0m \x1b]0;pwned title\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x9b2J ' +
  '</script><script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) ' +
  '\u202eevil\u202c \u2066iso\u2069 "double" \'single\' & amp `tick` ``double``';

/** An answer that tries to close any fence, open a heading and leave the <pre>, with controls and a CR. */
export const HOSTILE_A =
  'line one\n``````````\n# not a heading\n```\n~~~\n</pre><img src=x onerror=alert(1)><style>*{}</style>\r\n' +
  'after CR \x1bc reset \x07bell \x08bs \x85nel \u2028ls \ufeffbom end';

export const HOSTILE_LABEL = 'beta <b>bold</b> \x1b[1m"x"\u202e';

export interface Fixture {
  db: string;
  /** a1 (root), a2 and a3 under a1 (a branch), a4 under a2; b1 under a2 in session bbbb, b2 under b1. */
  ids: { a1: string; a2: string; a3: string; a4: string; b1: string; b2: string };
}

/**
 * Two sessions: `aaaa` (label alpha) with a branch at a1, and `bbbb` (a hostile label) whose first turn hangs
 * under a2 (a cross-session child). b1 carries the hostile text, b2 an imported source, a3 cited titles.
 */
export function buildFixture(path: string = tempDb()): Fixture {
  const s: Shard = ShardClass.open(path);
  try {
    s.createSession({ sid: 'aaaa', label: 'alpha', created_at: '2026-01-01T00:00:00.000Z' });
    s.createSession({ sid: 'bbbb', label: HOSTILE_LABEL, created_at: '2026-01-02T00:00:00.000Z' });
    const t = (n: number) => `2026-01-0${n}T10:00:00.000Z`;
    const a1 = s.addTurn({
      session: 'aaaa',
      question: 'What is a Merkle tree?',
      answer_text: 'A hash tree.',
      created_at: t(1),
    });
    const a2 = s.addTurn({
      parent: a1.bates,
      question: 'And a subtree hash?',
      answer_text: 'Hash of hashes.',
      created_at: t(2),
    });
    const a3 = s.addTurn({
      parent: a1.bates,
      question: 'Where is it used?',
      answer_text: 'Certificate Transparency.',
      cited_titles: ['RFC 6962', 'RFC <9162> & co'],
      audit: 'grounded',
      created_at: t(3),
    });
    const a4 = s.addTurn({
      parent: a2.bates,
      question: 'Ordered how?',
      answer_text: 'By sid, then seq.',
      created_at: t(4),
    });
    const b1 = s.addTurn({
      session: 'bbbb',
      parent: a2.bates,
      question: HOSTILE_Q,
      answer_text: HOSTILE_A,
      created_at: t(5),
    });
    const b2 = s.addTurn({
      parent: b1.bates,
      question: 'Imported from elsewhere',
      answer_text: 'kept as it was',
      source: 'claude',
      source_id: 'uuid-0001',
      audit: 'imported',
      cache_key: 'c'.repeat(64),
      created_at: t(6),
    });
    return {
      db: path,
      ids: { a1: a1.bates, a2: a2.bates, a3: a3.bates, a4: a4.bates, b1: b1.bates, b2: b2.bates },
    };
  } finally {
    s.close();
  }
}

/** No raw ESC, C0 (but newline and tab), DEL, C1, bidi control or BOM: what a `cat`ed export may hold. */
export const UNSAFE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/;
