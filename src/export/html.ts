import { clean, displaySessions, nesting, preview, selectionTitle } from './common.js';
import type { ExportedTurn, Selection } from './select.js';

/**
 * `arborist export --format html`: ONE self-contained file. Inline CSS only; no script, no external URL, font or
 * image; a Content-Security-Policy that forbids loading anything but the inline style, so even a mistake in the
 * escaping below could not fetch or run anything. Every piece of stored text is untrusted: controls are stripped
 * (src/text) and & < > " ' escaped, and it is only ever element content, never an attribute, a URL or CSS.
 */

export const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Untrusted text as HTML text: controls stripped, the five special characters escaped. */
export function esc(value: string): string {
  return clean(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const STYLE = `
:root { color-scheme: light dark; --dim: #6b7280; --line: #d1d5db; --ctx: #fef3c7; --ctx-ink: #92400e; }
@media (prefers-color-scheme: dark) { :root { --line: #374151; --ctx: #3b2f0b; --ctx-ink: #fcd34d; } }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: .2rem 0; }
code, pre { font: 13px/1.45 ui-monospace, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid var(--line); border-radius: 4px;
  padding: .5rem .75rem; margin: .25rem 0 .75rem; unicode-bidi: plaintext; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .25rem 0 .5rem; }
dt { color: var(--dim); } dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; } td, th { border-bottom: 1px solid var(--line); padding: .2rem .6rem;
  text-align: left; vertical-align: top; overflow-wrap: anywhere; }
nav ul { list-style: none; padding-left: 1.1rem; margin: 0; } nav > ul { padding-left: 0; }
nav li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
nav a { text-decoration: none; } .q { color: var(--dim); }
article { border-left: 3px solid var(--line); padding: .25rem 0 .25rem .75rem; margin: 1rem 0; }
.context { background: var(--ctx); } .tag { color: var(--ctx-ink); font-size: .8rem; font-weight: 600; }
.label { color: var(--dim); font-size: .85rem; }
`;

function dl(rows: [string, string][]): string {
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

const codeOf = (s: string) => `<code>${esc(s)}</code>`;

/** Nested lists from depth-first depths (each turn at most one level below the one before it). */
function tree(turns: readonly ExportedTurn[]): string {
  let html = '';
  let cur = -1;
  turns.forEach((t, i) => {
    const { level, extra } = nesting(t.depth);
    if (level > cur) html += '<ul>'.repeat(level - cur);
    else {
      html += '</li>';
      for (let k = cur; k > level; k--) html += '</ul></li>';
    }
    const deeper = extra > 0 ? `+${extra} ` : '';
    const tag = t.context ? ' <span class="tag">context</span>' : '';
    html += `\n<li>${deeper}<a href="#t${i}"><code>${esc(t.node.bates)}</code></a>${tag} <span class="q">${esc(preview(t.node.question))}</span>`;
    cur = level;
  });
  if (cur >= 0) {
    html += '</li>';
    for (let k = cur; k > 0; k--) html += '</ul></li>';
    html += '</ul>';
  }
  return html;
}

function article(t: ExportedTurn, i: number): string {
  const n = t.node;
  const rows: [string, string][] = [
    ['session', `${codeOf(n.sid)}, turn ${n.seq}`],
    ['parent', n.parent_bates === null ? '(root)' : codeOf(n.parent_bates)],
    ['created', codeOf(n.created_at)],
    ['audit', codeOf(n.audit)],
  ];
  if (n.source !== null || n.source_id !== null)
    rows.push(['source', [n.source, n.source_id].map((x) => (x === null ? '-' : codeOf(x))).join(' ')]);
  if (n.cited_titles.length > 0) rows.push(['cited', n.cited_titles.map(codeOf).join(', ')]);
  if (n.n_cited_sources !== n.cited_titles.length) rows.push(['cited sources', String(n.n_cited_sources)]);
  if (n.cache_key !== null) rows.push(['cache key', codeOf(n.cache_key)]);
  rows.push(['node hash', codeOf(n.node_hash)], ['subtree hash', codeOf(n.subtree_hash)]);
  if (n.damaged) rows.push(['damaged', `${codeOf(n.damaged.join(', '))} (see arborist verify)`]);
  const indent = Math.min(nesting(t.depth).level, 12) * 1.25;
  const tag = t.context ? ' <span class="tag">context: an ancestor in another session</span>' : '';
  return [
    `<article id="t${i}"${t.context ? ' class="context"' : ''} style="margin-left: ${indent}rem">`,
    `<h3><code>${esc(n.bates)}</code>${tag}</h3>`,
    dl(rows),
    '<div class="label">Question</div>',
    `<pre>${esc(n.question)}</pre>`,
    '<div class="label">Answer</div>',
    `<pre>${esc(n.answer_text)}</pre>`,
    '</article>',
  ].join('\n');
}

export function renderHtml(sel: Selection, exportedAt: string): string {
  const title = esc(selectionTitle(sel));
  const sessions = displaySessions(sel)
    .map(({ session: s, context: isContext }) => {
      const context = isContext ? ' <span class="tag">context</span>' : '';
      return `<tr><td>${codeOf(s.sid)}${context}</td><td>${s.label === null ? '' : esc(s.label)}</td><td>${codeOf(s.created_at)}</td><td>${codeOf(s.session_root)}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>arborist export: ${title}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>arborist export: ${title}</h1>
${dl([
  ['exported at', codeOf(exportedAt)],
  ['chain head', codeOf(sel.chainHead)],
  ['turns', String(sel.turns.length)],
])}
</header>
<section>
<h2>Sessions</h2>
<table>
<tr><th>sid</th><th>label</th><th>created</th><th>session root</th></tr>
${sessions}
</table>
</section>
<nav>
<h2>Tree</h2>
${sel.turns.length === 0 ? '<p>(no turns)</p>' : tree(sel.turns)}
</nav>
<main>
<h2>Turns</h2>
${sel.turns.map(article).join('\n')}
</main>
</body>
</html>
`;
}
