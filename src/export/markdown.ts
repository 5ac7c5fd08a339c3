import { clean, displaySessions, line, nesting, preview, selectionTitle } from './common.js';
import type { ExportedTurn, Selection } from './select.js';

/**
 * `arborist export --format md`: readable markdown. Every piece of stored text is untrusted (a shard may hold
 * imported transcripts), so none of it is ever markdown: one-line values are code spans, questions and answers
 * fenced code blocks, each fence longer than any backtick run inside, so no text can close it, open a heading, a
 * link, an image or raw HTML. Terminal controls (ESC sequences, C0, C1, bidi) are stripped first: an export gets
 * `cat`ed to terminals.
 */

/** The longest run of backticks in s. */
function longestTicks(s: string): number {
  if (!s.includes('`')) return 0;
  let best = 0;
  for (const m of s.matchAll(/`+/g)) if (m[0].length > best) best = m[0].length;
  return best;
}

/** One line of untrusted text as a code span: inside one, markdown and HTML mean nothing. */
export function code(value: string): string {
  const s = line(value);
  if (s.trim() === '') return '(empty)';
  const ticks = '`'.repeat(longestTicks(s) + 1);
  // A span that starts or ends with a backtick needs a space inside its delimiters (CommonMark strips one each side).
  const pad = s.startsWith('`') || s.endsWith('`') || (s.startsWith(' ') && s.endsWith(' ')) ? ' ' : '';
  return `${ticks}${pad}${s}${pad}${ticks}`;
}

/** Multi-line untrusted text as a fenced block whose fence is longer than any backtick run inside. */
export function fenced(value: string): string {
  const s = clean(value).replace(/\n+$/, '');
  const fence = '`'.repeat(Math.max(3, longestTicks(s) + 1));
  return `${fence}text\n${s}${s === '' ? '' : '\n'}${fence}`;
}

function treeLines(turns: readonly ExportedTurn[]): string[] {
  return turns.map((t) => {
    const { level, extra } = nesting(t.depth);
    const deeper = extra > 0 ? `+${extra} ` : '';
    const ctx = t.context ? ' (context)' : '';
    const q = preview(t.node.question);
    return `${'  '.repeat(level)}- ${deeper}${code(t.node.bates)}${ctx} ${q === '' ? '' : code(q)}`.trimEnd();
  });
}

function turnSection(t: ExportedTurn): string {
  const n = t.node;
  const meta = [
    `- session: ${code(n.sid)}, turn ${n.seq}`,
    `- parent: ${n.parent_bates === null ? '(root)' : code(n.parent_bates)}`,
    `- created: ${code(n.created_at)}`,
    `- audit: ${code(n.audit)}`,
  ];
  if (t.context)
    meta.push('- context: an ancestor in another session, shown for the path; not part of the session');
  if (n.source !== null || n.source_id !== null)
    meta.push(`- source: ${[n.source, n.source_id].map((x) => (x === null ? '-' : code(x))).join(' ')}`);
  if (n.cited_titles.length > 0) meta.push(`- cited: ${n.cited_titles.map(code).join(', ')}`);
  if (n.n_cited_sources !== n.cited_titles.length) meta.push(`- cited sources: ${n.n_cited_sources}`);
  if (n.cache_key !== null) meta.push(`- cache key: ${code(n.cache_key)}`);
  meta.push(`- node hash: ${code(n.node_hash)}`, `- subtree hash: ${code(n.subtree_hash)}`);
  if (n.damaged) meta.push(`- damaged: ${code(n.damaged.join(', '))} (see arborist verify)`);
  return [
    `### ${code(n.bates)}${t.context ? ' (context)' : ''}`,
    '',
    ...meta,
    '',
    '**Question**',
    '',
    fenced(n.question),
    '',
    '**Answer**',
    '',
    fenced(n.answer_text),
  ].join('\n');
}

/** The turns the selection holds, its context (ancestors in other sessions, shown for the path) counted apart. */
function turnsLine(sel: Selection): string {
  const context = sel.turns.filter((t) => t.context).length;
  const own = sel.turns.length - context;
  return context === 0 ? `${own}` : `${own} (and ${context} of context, from other sessions)`;
}

export function renderMarkdown(sel: Selection, exportedAt: string): string {
  const out: string[] = [
    `# arborist export: ${code(selectionTitle(sel))}`,
    '',
    `- exported at: ${code(exportedAt)}`,
    `- chain head: ${code(sel.chainHead)}`,
    `- turns: ${turnsLine(sel)}`,
    '',
    '## Sessions',
  ];
  for (const { session: s, context } of displaySessions(sel)) {
    out.push(
      '',
      `### Session ${code(s.sid)}${context ? ' (context)' : ''}`,
      '',
      `- label: ${s.label === null ? '(none)' : code(s.label)}`,
      `- created: ${code(s.created_at)}`,
      `- session root: ${code(s.session_root)}`,
    );
  }
  out.push('', '## Tree', '');
  if (sel.turns.length === 0) out.push('(no turns)');
  else out.push(...treeLines(sel.turns));
  out.push('', '## Turns');
  for (const t of sel.turns) out.push('', turnSection(t));
  return `${out.join('\n')}\n`;
}
