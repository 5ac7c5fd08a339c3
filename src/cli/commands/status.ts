// The store's light entry, not store/index.js: through the index the bundle keeps every store module's top-level
// code and packages (fuse.js among them), which status-main.ts exists to leave out.

import { type KeeperStatus, keeperStatus } from '../../keep/state.js';
import { ArboristError, asArboristError, type ChainStatus, chainStatus } from '../../store/light.js';
import { type LastSync, lastSyncs } from '../../sync/last.js';
import { age, counted } from '../../text/format.js';
import { oneLine } from '../../text/sanitize.js';
import { truncate } from '../../text/width.js';
import { exactPositionals, flag, type OptionSpec, type Parsed, str } from '../args.js';
import type { Command } from '../command.js';
import { safeJson } from '../terminal-text.js';

/**
 * `arborist status`: one short line about the chain for a tmux status bar or a shell prompt (docs/ssh-tmux.md).
 * Kept free of the rest of the CLI (it imports the store's status and the printing helpers only), because it also
 * runs from its own small bundle (status-main.ts): it is started every few seconds and Node's start-up is most of
 * its cost.
 */

const USAGE =
  'arborist status [--short] [--tmux] [--keeper] [--sync] [--json] [--full] [--expect-head SEQ:HASH]';

export const STATUS_OPTIONS: OptionSpec = {
  short: { type: 'boolean' },
  tmux: { type: 'boolean' },
  full: { type: 'boolean' },
  keeper: { type: 'boolean' },
  sync: { type: 'boolean' },
  'expect-head': { type: 'string' },
};

/**
 * What the command needs of the CLI's context: where the shard is and where to print. Not the context's Output
 * itself: that one carries chalk, which status-main.ts leaves out (its two colours are written here).
 */
export interface StatusIO {
  dbPath: string;
  json: boolean;
  /** Terminal colour is on (a tty, no NO_COLOR, no --no-color): SGR codes pass `out`. */
  colour: boolean;
  /** Prints to stdout through the CLI's last line of defence (terminal-text.ts, terminalSafe). */
  out: (s: string) => void;
  err: (s: string) => void;
}

/** 987, 12.3k, 203k, 1.0M: an event count that fits a status bar. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  const [div, unit] = n < 1e6 ? [1e3, 'k'] : [1e6, 'M'];
  const v = n / div;
  return `${v < 100 ? (Math.floor(v * 10) / 10).toFixed(1) : Math.floor(v)}${unit}`;
}

/** The head's hash as 8 hex digits. The chain check formats it from bytes, but nothing unchecked is printed. */
function headPrefix(head: string): string {
  const hash = head.slice(head.indexOf(':') + 1);
  return /^[0-9a-f]{64}$/.test(hash) ? hash.slice(0, 8) : '????????';
}

type Tone = 'good' | 'bad';

/** How a piece of the line is coloured: tmux style codes, the terminal's (off without a tty or with NO_COLOR), or not. */
function painter(io: StatusIO, tmux: boolean): (tone: Tone, s: string) => string {
  if (tmux) {
    // Everything we print is digits, hex and our own words; '#' is removed anyway so that nothing in the text can
    // open a tmux format or style of its own.
    return (tone, s) =>
      `${tone === 'good' ? '#[fg=green]' : '#[fg=red,bold]'}${s.replace(/#/g, '')}#[default]`;
  }
  if (!io.colour) return (_tone, s) => s;
  // The SGR codes chalk writes for green and for bold red.
  return (tone, s) => (tone === 'good' ? `\x1b[32m${s}\x1b[39m` : `\x1b[1m\x1b[31m${s}\x1b[39m\x1b[22m`);
}

function stateWords(s: ChainStatus): { tone: Tone; word: string } {
  if (s.first_broken_seq !== null) return { tone: 'bad', word: `BROKEN at ${s.first_broken_seq}` };
  if (s.holds_expected_head === false) return { tone: 'bad', word: 'HEAD DIFFERS' };
  return { tone: 'good', word: 'intact' };
}

/** `⛓ intact 1.0M ev 4f3a9c1e · 12 today` */
export function shortLine(s: ChainStatus, paint: (tone: Tone, s: string) => string): string {
  const { tone, word } = stateWords(s);
  const chain = s.first_broken_seq !== null ? '' : ` ${compactCount(s.events)} ev ${headPrefix(s.head)}`;
  return `⛓ ${paint(tone, word)}${chain} · ${s.turns_today} today`;
}

/**
 * `chain intact · 1,000,000 events · head 4f3a9c1e · 12 turns created today`: created, by their dates, so that beside
 * the keeper's "212 turns kept today" (imported today, of any date) the two do not read as one count twice.
 */
export function longLine(s: ChainStatus, paint: (tone: Tone, s: string) => string): string {
  const { tone, word } = stateWords(s);
  const parts = [paint(tone, `chain ${word}`)];
  if (s.first_broken_seq !== null && s.reason) parts[0] += `: ${oneLine(s.reason)}`;
  parts.push(counted(s.events, 'event'));
  if (s.first_broken_seq === null) parts.push(`head ${headPrefix(s.head)}`);
  if (s.expected_head !== undefined && s.holds_expected_head === false)
    parts.push(paint('bad', `expected head ${headPrefix(s.expected_head)} not in the chain`));
  parts.push(`${counted(s.turns_today, 'turn')} created today`);
  return parts.join(' · ');
}

/**
 * The keeper's part of the line, when asked (`--keeper`): `keep ✓` while a keeper runs on the shard, `keep ✗` when
 * none does (docs/keep.md). Two small files and a /proc lookup: cheap enough for a status bar.
 */
function keeperWords(k: KeeperStatus, short: boolean, paint: (tone: Tone, s: string) => string): string {
  if (!k.running) return paint('bad', short ? 'keep ✗' : 'no keeper');
  // Running, but its writes fail (the shard locked, full or read-only): not keeping anything now.
  if (k.trouble !== null) return paint('bad', short ? 'keep !' : `keeper ${k.pid} cannot write the shard`);
  // The turns it saved, the archive tier's among them (docs/keep.md): said, as verify counts live turns only.
  const archived = k.turns_today_archived > 0 ? ` (${k.turns_today_archived} archived)` : '';
  return paint(
    'good',
    short ? 'keep ✓' : `keeper ${k.pid}, ${counted(k.turns_today, 'turn')} kept today${archived}`,
  );
}

/**
 * The last sync's part of the line, when asked (`--sync`): how long ago this shard last synced with any remote
 * (`synced 12m ago`, `sync 12m`), or that it never did. Its file is a hint kept in the mirror (src/sync/last.ts).
 */
function syncWords(
  last: Record<string, LastSync>,
  short: boolean,
  paint: (tone: Tone, s: string) => string,
): string {
  const ages = Object.values(last).map((x) => x.age_s);
  if (ages.length === 0) return paint('bad', short ? 'sync ✗' : 'never synced');
  const ago = age(0, Math.min(...ages) * 1000);
  return short ? `sync ${ago}` : ago === 'now' ? 'synced now' : `synced ${ago} ago`;
}

function expectedHead(p: Parsed): { seq: number; hash: string } | undefined {
  const v = str(p, 'expect-head');
  if (v === undefined) return undefined;
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(v);
  if (!m) throw new ArboristError('usage', '--expect-head takes SEQ:HASH (a number, a colon, 64 hex digits)');
  return { seq: Number(m[1]), hash: m[2] };
}

/** The word a status bar shows when there is no answer (the reason goes to stderr as one line). */
function failureWord(e: ArboristError): string {
  if (e.kind === 'damaged') return 'DAMAGED';
  if (/^no shard at /.test(e.message)) return 'no shard';
  return e.kind === 'busy' ? 'busy' : 'unusable';
}

export function runStatus(p: Parsed, io: StatusIO): number {
  exactPositionals(p, 0, USAGE);
  const short = flag(p, 'short');
  const tmux = flag(p, 'tmux');
  if (io.json && (short || tmux))
    throw new ArboristError('usage', 'status --json is one document: it does not take --short or --tmux');
  const expectHead = expectedHead(p);
  const paint = painter(io, tmux);
  let s: ChainStatus;
  try {
    s = chainStatus(io.dbPath, { full: flag(p, 'full'), expectHead });
  } catch (err) {
    const e = asArboristError(io.dbPath, err);
    if (!e) throw err;
    // Exit 2 (an unusable shard): one line on stderr; a status bar reads stdout, so it gets a word too.
    const line = truncate(oneLine(e.message), 300);
    if (io.json) io.out(`${safeJson({ error: line, kind: e.kind })}\n`);
    else if (short) io.out(`⛓ ${paint('bad', failureWord(e))}\n`);
    io.err(`arborist: ${line}\n`);
    return 2;
  }
  // The keeper's fields are always in the JSON (a document's consumer picks what it needs); on a line, when asked.
  if (io.json) io.out(`${safeJson({ ...s, keeper: keeperStatus(io.dbPath), sync: lastSyncs(io.dbPath) })}\n`);
  else {
    const line = short ? shortLine(s, paint) : longLine(s, paint);
    const keeper = flag(p, 'keeper') ? ` · ${keeperWords(keeperStatus(io.dbPath), short, paint)}` : '';
    const synced = flag(p, 'sync') ? ` · ${syncWords(lastSyncs(io.dbPath), short, paint)}` : '';
    io.out(`${line}${keeper}${synced}\n`);
  }
  return s.ok ? 0 : 1;
}

export const statusCmd: Command = {
  name: 'status',
  usage: USAGE,
  summary:
    "one line for tmux or a prompt: chain intact or BROKEN, events, head, turns created today (exit 1 when broken); --keeper adds whether a keeper runs, --sync the last sync's age",
  options: STATUS_OPTIONS,
  run: (p, ctx) =>
    runStatus(p, {
      dbPath: ctx.dbPath,
      json: ctx.out.json,
      colour: ctx.out.color.level > 0,
      out: ctx.out.out,
      err: ctx.out.err,
    }),
};
