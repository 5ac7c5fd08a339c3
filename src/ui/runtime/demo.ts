/**
 * A small demo shard: a few sessions with labels, branches (rewinds), and forks that cross sessions, so a new user
 * sees the idea at once. Built through the ordinary store API: every turn is hashed and audited like any other.
 */
import type { Shard } from '../../store/index.js';

interface DemoTurn {
  /** Local name, for parents. */
  id: string;
  /** Parent: a local name (possibly from another session). */
  parent?: string;
  q: string;
  a: string;
  cited?: string[];
  audit?: 'manual' | 'grounded';
}

interface DemoSession {
  label: string;
  /** Days before now when the session started. */
  daysAgo: number;
  turns: DemoTurn[];
}

const RUST_BOOK = 'The Rust Programming Language, 10.3 Validating References with Lifetimes';
const ASYNC_BOOK = 'Asynchronous Programming in Rust, 2.4 Pinning';
const WAL_DOC = 'SQLite: Write-Ahead Logging';
const PRAGMA_DOC = 'SQLite: PRAGMA data_version';
const TMUX_MAN = 'tmux(1) manual page';
const TMUX_FAQ = 'tmux FAQ: How do I use a 256 colour terminal?';

const SESSIONS: DemoSession[] = [
  {
    label: 'rust lifetimes',
    daysAgo: 12,
    turns: [
      {
        id: 'r1',
        q: 'What is a lifetime in Rust, in one paragraph?',
        a: "A lifetime is the region of code for which a reference is valid. The borrow checker gives every reference a lifetime and checks that no reference outlives the value it points to. Most lifetimes are inferred; you write them (as 'a) only when a signature relates the lifetimes of several references, so the compiler knows which input the output borrows from.",
        cited: [RUST_BOOK],
        audit: 'grounded',
      },
      {
        id: 'r2',
        parent: 'r1',
        q: 'And for structs that hold references?',
        a: "A struct holding a reference needs a lifetime parameter: struct Excerpt<'a> { part: &'a str }. It says an Excerpt cannot outlive the string it borrows from. Methods then name it too: impl<'a> Excerpt<'a> { fn part(&self) -> &'a str { self.part } }.",
        cited: [RUST_BOOK],
        audit: 'grounded',
      },
      {
        id: 'r3',
        parent: 'r2',
        q: 'How do lifetimes interact with async functions?',
        a: "An async fn returns a future that captures its arguments, so the future carries their lifetimes: async fn f(s: &str) returns impl Future + '_ . You cannot spawn such a future on a multi-threaded runtime, because spawn needs 'static; clone or move owned data (String, Arc) into the task instead.",
        cited: [ASYNC_BOOK],
        audit: 'grounded',
      },
      {
        id: 'r4',
        parent: 'r2',
        q: "Why does the compiler say 'borrowed value does not live long enough'?",
        a: 'Something keeps a reference longer than the value lives: typically a reference stored in a struct or a Vec that outlives a local, or returned from a function that created the value. Either return the owned value, or create the value in a scope that outlives every use of the reference.',
        audit: 'manual',
      },
      {
        id: 'r5',
        parent: 'r4',
        q: "When should I reach for 'static instead?",
        a: "Rarely for references: &'static str is right for string literals and leaked data. As a bound (T: 'static) it means the type holds no short-lived borrows, which is what thread::spawn and tokio::spawn require; owned types such as String satisfy it.",
        audit: 'manual',
      },
      {
        id: 'r6',
        parent: 'r3',
        q: 'So how do I share a borrowed config with spawned tasks?',
        a: "Put it in an Arc<Config> and clone the Arc into each task; the clone is cheap (a counter bump) and the task owns its handle, so it is 'static. If the config never changes after start-up, Box::leak gives a &'static Config too.",
        cited: [ASYNC_BOOK],
        audit: 'grounded',
      },
    ],
  },
  {
    label: 'sqlite wal',
    daysAgo: 6,
    turns: [
      {
        id: 's1',
        q: 'What does WAL mode change in SQLite?',
        a: 'With journal_mode=WAL, changes are appended to a separate -wal file instead of rewriting the database in place. Readers keep reading the old pages while a writer appends, so readers never block the writer and the writer never blocks readers. A checkpoint later copies the pages back into the main file.',
        cited: [WAL_DOC],
        audit: 'grounded',
      },
      {
        id: 's2',
        parent: 's1',
        q: 'How does checkpointing work?',
        a: 'By default SQLite runs a PASSIVE checkpoint when the WAL passes 1000 pages (wal_autocheckpoint). It copies what it can without waiting for readers. PRAGMA wal_checkpoint(TRUNCATE) waits for readers and resets the file, handy before a backup.',
        cited: [WAL_DOC],
        audit: 'grounded',
      },
      {
        id: 's3',
        parent: 's1',
        q: 'Can two processes write at the same time?',
        a: 'No: WAL allows many readers and one writer at a time. A second writer gets SQLITE_BUSY unless you set busy_timeout, which makes it wait and retry. BEGIN IMMEDIATE takes the write lock up front, so a transaction never fails half-way on a lock upgrade.',
        cited: [WAL_DOC],
        audit: 'grounded',
      },
      {
        id: 's4',
        parent: 's3',
        q: 'How can a long-running reader notice that someone else wrote?',
        a: 'Poll PRAGMA data_version: it changes when another connection commits, and costs next to nothing. Re-read what you display when it moves; your own commits do not change it.',
        cited: [PRAGMA_DOC],
        audit: 'grounded',
      },
    ],
  },
  {
    label: 'tmux',
    daysAgo: 3,
    turns: [
      {
        id: 't1',
        q: 'How do I split a tmux window side by side?',
        a: 'Prefix then % splits left/right, prefix then " splits top/bottom. From a shell: tmux split-window -h. Move between panes with prefix and the arrow keys.',
        cited: [TMUX_MAN],
        audit: 'manual',
      },
      {
        id: 't2',
        parent: 't1',
        q: 'How do I get 256 colours inside tmux?',
        a: 'Run tmux in a terminal that has them, and set set -g default-terminal "tmux-256color" (or "screen-256color" where that terminfo entry is missing). Check with tput colors inside a pane: it should print 256.',
        cited: [TMUX_FAQ],
        audit: 'grounded',
      },
      {
        id: 't3',
        parent: 't2',
        q: 'Why does a TUI print terminfo errors under TERM=tmux-256color?',
        a: 'Some libraries parse terminfo themselves and fail on newer capabilities, or do not know the entry at all. Either the library falls back to a known entry (xterm-256color works inside tmux for everything a TUI needs), or you set TERM for that program only.',
        audit: 'manual',
      },
    ],
  },
  {
    label: 'rust + sqlite',
    daysAgo: 1,
    turns: [
      {
        id: 'x1',
        parent: 's4',
        q: 'How would I poll data_version from Rust while holding a borrowed connection?',
        a: 'With rusqlite: conn.query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0)). Keep the Connection owned by one struct and borrow it per call; a struct with a &\'a Connection field ties the struct to the connection\'s lifetime, which is exactly what the borrow checker will ask you to spell out.',
        cited: [PRAGMA_DOC, RUST_BOOK],
        audit: 'grounded',
      },
      {
        id: 'x2',
        parent: 'x1',
        q: 'And from an async task?',
        a: 'rusqlite connections are not Sync: give the connection to one blocking thread (tokio::task::spawn_blocking) and talk to it over a channel, or open one connection per task. WAL lets those readers run alongside the writer.',
        cited: [ASYNC_BOOK, WAL_DOC],
        audit: 'grounded',
      },
      {
        id: 'x3',
        parent: 'r6',
        q: 'Could the shared Arc<Config> hold the database path too?',
        a: 'Yes: a PathBuf inside the Arc<Config> is owned data, so every task can open its own connection from it. Keep the Connection itself out of the shared config.',
        audit: 'manual',
      },
    ],
  },
];

/** Adds the demo sessions to `shard`. Returns what it added. */
export function buildDemo(shard: Shard, now: number = Date.now()): { sessions: number; turns: number } {
  const bates = new Map<string, string>();
  let turns = 0;
  shard.write(() => {
    for (const s of SESSIONS) {
      const start = now - s.daysAgo * 86_400_000;
      const session = shard.createSession({ label: s.label, created_at: new Date(start).toISOString() });
      s.turns.forEach((t, i) => {
        const parent = t.parent ? bates.get(t.parent) : undefined;
        const added = shard.addTurn({
          question: t.q,
          answer_text: t.a,
          cited_titles: t.cited ?? [],
          audit: t.audit ?? 'manual',
          session: session.sid,
          parent,
          created_at: new Date(start + (i + 1) * 7 * 60_000).toISOString(),
          source: 'demo',
        });
        bates.set(t.id, added.bates);
        turns++;
      });
    }
  });
  return { sessions: SESSIONS.length, turns };
}
