/** The transcript pane's document for the current selection, and where it is scrolled to. */
import { shortTime } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { wrap } from '../../../text/width.js';
import { labelOf, selectedBates, textSize } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { archivedSessionLines } from '../maintenance/model.js';
import { autoPos, type Doc, linesDoc, pathDoc, type TLine, type TPos } from './model.js';

/** Where a pulled session was made (docs/sync.md): "from host h4x9... (archived there)". */
function hostText(o: { host?: string; archivedThere?: boolean }): string {
  return `from host ${o.host}${o.archivedThere ? ' (archived there)' : ''}`;
}

/** A session's name in a path's headers: its label, and for a session pulled by sync the host it came from. */
function headerLabelOf(s: State): (sid: string) => string | null {
  const label = labelOf(s);
  return (sid) => {
    const o = s.origins.get(sid);
    const l = label(sid);
    if (!o?.host) return l;
    return l ? `${l} · ${hostText(o)}` : hostText(o);
  };
}

/** The transcript document for the current selection. */
export function transcriptDoc(s: State): Doc {
  const { w } = textSize(s);
  const row = s.list[s.sel];
  if (!row) return linesDoc([]);
  if (row.heading) {
    const h = row.heading;
    return linesDoc([
      ...wrap(h.project === '' ? 'sessions without a project' : `project ${h.project}`, Math.max(1, w)).map(
        (text): TLine => ({ role: 'session', text }),
      ),
      { role: 'meta', text: `${h.n} session${h.n === 1 ? '' : 's'} · newest ${shortTime(h.newest)}` },
      { role: 'blank', text: '' },
      {
        role: 'info',
        text: `Left/h closes, Right/l opens; ${s.keyOf['sessions.group'] ?? 'sessions.group'}: by age`,
      },
    ]);
  }
  if (row.node < 0) {
    const ses = s.sessions[row.session];
    if (ses.archived) return linesDoc(archivedSessionLines(ses, s.keyOf, s.expanded.has(ses.sid), w));
    if (s.ask && s.ask.parent === null && s.ask.session === ses.sid) {
      return pathDoc([], w, labelOf(s), { ...s.ask });
    }
    const o = s.origins.get(ses.sid);
    const agent = o?.here ? 'asked in arborist' : (s.agents.get(o?.agent ?? '')?.name ?? o?.agent);
    const from = o
      ? `${agent}${o.project ? ` · ${o.project}` : ''}${o.host ? ` · ${hostText(o)}` : ''}`
      : null;
    const title = ses.label || s.titles.get(ses.sid) || '';
    // Wrapped, not cut: a project's end is what tells two folders apart (…/home-old/shop, …/home-new/shop).
    const wrapped = (role: 'session' | 'meta', text: string): TLine[] =>
      wrap(text, Math.max(1, w)).map((t) => ({ role, text: t }));
    const lines: TLine[] = [
      // Its label, else its title (the agent's own, or its first question): the row cuts it at 80 columns.
      ...wrapped('session', `session ${ses.sid}${title ? ` · ${oneLine(title)}` : ''}`),
      ...(from ? wrapped('meta', from) : []),
      ...wrapped(
        'meta',
        `${ses.n_nodes} turn${ses.n_nodes === 1 ? '' : 's'} · created ${shortTime(ses.created_at)}`,
      ),
      { role: 'blank', text: '' },
      {
        role: 'info',
        text: s.expanded.has(ses.sid)
          ? 'Down/j walks its turns.'
          : 'Right/l (or Enter) expands it to its turns.',
      },
    ];
    return linesDoc(lines);
  }
  const bates = selectedBates(s);
  const path = s.path && s.path.bates === bates ? s.path : null;
  if (path?.error) {
    const why = wrap(`This turn's path cannot be shown: ${oneLine(path.error)}`, w);
    return linesDoc([
      { role: 'session', text: `${bates}` },
      ...why.map((text) => ({ role: 'info' as const, text })),
    ]);
  }
  const turns = path ? path.turns : [];
  const pending = s.ask && s.ask.parent === bates ? s.ask : null;
  const key = s.keyOf['thinking.toggle'] ?? 'thinking.toggle';
  return pathDoc(
    turns,
    w,
    headerLabelOf(s),
    pending,
    (b) => s.toolsOpen.get(b),
    (b) => {
      const d = s.details.get(b);
      return d && d !== 'pending' ? { details: d, thinking: s.showThinking, key } : undefined;
    },
  );
}

/** The transcript's top position on screen (resolving the automatic one). */
export function transcriptPos(s: State, doc: Doc = transcriptDoc(s)): TPos {
  if (s.tpos) return s.tpos;
  return autoPos(doc, textSize(s).h, s.ask !== null);
}

/**
 * Which of the window's call lines the fold keys act on, as an index into `rows` (-1: none on screen): the first,
 * or the one j/k picked at the transcript's end while the pane and the selection stay where they were.
 */
export function pickedCallRow(s: State, rows: readonly { line: TLine }[], pos: TPos): number {
  const calls: number[] = [];
  rows.forEach((r, i) => {
    if (r.line.call !== undefined) calls.push(i);
  });
  if (calls.length === 0) return -1;
  const p = s.callPick;
  const k = p && p.bates === selectedBates(s) && p.at.turn === pos.turn && p.at.line === pos.line ? p.k : 0;
  return calls[Math.min(k, calls.length - 1)];
}
