import { describe, expect, it } from 'vitest';
import { displayWidth, type Run, wrap, wrapRuns } from '../../src/text/width.js';
import { highlightLines } from '../../src/ui/features/transcript/highlight.js';
import { type MdLine, renderMarkdown, warmStep } from '../../src/ui/features/transcript/markdown.js';
import { type Turn, turnBlock } from '../../src/ui/features/transcript/model.js';
import { Style } from '../../src/ui/term/canvas.js';
import { attrTable } from '../../src/ui/term/terminal.js';

const texts = (lines: MdLine[]) => lines.map((l) => l.text);
/** The style of the first run whose text contains `s`. */
function styleOf(lines: MdLine[], s: string): Style | undefined {
  for (const l of lines) for (const [t, st] of l.spans) if (t.includes(s)) return st;
  return undefined;
}
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function turn(answer: string, question = 'q'): Turn {
  return {
    bates: `t-${Math.random()}`,
    sid: 's',
    parent_bates: null,
    is_top: 1,
    question,
    answer_text: answer,
    cited_titles: [],
    audit: 'manual',
    created_at: 0,
    node_hash: 'n'.repeat(64),
    subtree_hash: 's'.repeat(64),
    n_children: 0,
    depth: 0,
  } as unknown as Turn;
}

describe('markdown in answers', () => {
  it('shows headings without their #, styled by level', () => {
    const out = renderMarkdown('# One\n\n## Two **bold**\n\n### Three', 40);
    expect(texts(out)).toEqual(['One', '', 'Two bold', '', 'Three']);
    expect(styleOf(out, 'One')).toBe(Style.mdH1);
    expect(styleOf(out, 'Two')).toBe(Style.mdH2);
    expect(styleOf(out, 'Three')).toBe(Style.mdH3);
  });

  it('styles emphasis, strong and inline code, and keeps line breaks as written', () => {
    const out = renderMarkdown('a *soft* and **loud** `x()`\nnext line', 40);
    expect(texts(out)).toEqual(['a soft and loud x()', 'next line']);
    expect(styleOf(out, 'soft')).toBe(Style.mdEm);
    expect(styleOf(out, 'loud')).toBe(Style.mdStrong);
    expect(styleOf(out, 'x()')).toBe(Style.mdCode);
  });

  it('lists: bullets by depth, numbers from the start given, task boxes, no gap in a tight list', () => {
    const src = '- one\n- two\n  - nested\n  - [ ] open\n  - [x] done\n\n3. three\n4. four';
    expect(texts(renderMarkdown(src, 40))).toEqual([
      '• one',
      '• two',
      '  ◦ nested',
      '  ☐ open',
      '  ☑ done',
      '',
      '3. three',
      '4. four',
    ]);
  });

  it('wraps a list item under its text, not under its bullet', () => {
    expect(texts(renderMarkdown('- aaa bbb ccc ddd', 10))).toEqual(['• aaa bbb', '  ccc ddd']);
  });

  it('puts block quotes behind a bar, nested ones behind two', () => {
    const out = renderMarkdown('> said\n>\n> > inner', 40);
    expect(texts(out)).toEqual(['│ said', '│', '│ │ inner']);
    expect(styleOf(out, '│')).toBe(Style.mdQuote);
  });

  it('aligns a table that fits, right and centre alignment included', () => {
    const out = texts(renderMarkdown('| name | n |\n|---|--:|\n| a | 1 |\n| long name | 200 |', 40));
    expect(out).toEqual(['name      │   n', '──────────┼────', 'a         │   1', 'long name │ 200']);
  });

  it('shows a table too wide for the pane as header: value lines, losing no cell', () => {
    const row = (c: string) => `| ${c.repeat(12)} | ${c.repeat(12)} | ${c.repeat(12)} |`;
    const src = `| alpha | beta | gamma |\n|---|---|---|\n${row('x')}\n${row('y')}`;
    const out = texts(renderMarkdown(src, 30));
    expect(out).toEqual([
      `alpha: ${'x'.repeat(12)}`,
      `beta: ${'x'.repeat(12)}`,
      `gamma: ${'x'.repeat(12)}`,
      '╌╌╌',
      `alpha: ${'y'.repeat(12)}`,
      `beta: ${'y'.repeat(12)}`,
      `gamma: ${'y'.repeat(12)}`,
    ]);
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(30);
  });

  it('shows a link as its text and its address, dimmed; an autolink once', () => {
    const out = renderMarkdown('see [the docs](https://x.dev/a) or <https://y.dev>', 80);
    expect(texts(out)).toEqual(['see the docs (https://x.dev/a) or https://y.dev']);
    expect(styleOf(out, 'the docs')).toBe(Style.mdLink);
    expect(styleOf(out, '(https://x.dev/a)')).toBe(Style.mdUrl);
  });

  it('draws a rule as a line', () => {
    const out = renderMarkdown('a\n\n---\n\nb', 20);
    expect(texts(out)).toEqual(['a', '', '─'.repeat(20), '', 'b']);
  });

  it('highlights fenced code by its language, each token its style', () => {
    const out = renderMarkdown('```ts\nconst s = "hi"; // note\nreturn 42;\n```', 60);
    expect(texts(out)).toEqual(['┌─ ts', '│ const s = "hi"; // note', '│ return 42;', '└─']);
    expect(styleOf(out, 'const')).toBe(Style.hlKeyword);
    expect(styleOf(out, '"hi"')).toBe(Style.hlString);
    expect(styleOf(out, '// note')).toBe(Style.hlComment);
    expect(styleOf(out, '42')).toBe(Style.hlNumber);
    expect(styleOf(out, 'return')).toBe(Style.hlKeyword);
  });

  it('shows code of an unknown or no language plain, and never guesses one', () => {
    for (const src of ['```nosuchlang\nconst x = 1;\n```', '```\nconst x = 1;\n```', '    const x = 1;']) {
      const out = renderMarkdown(src, 40);
      expect(texts(out)).toContain('│ const x = 1;');
      expect(styleOf(out, 'const')).toBe(Style.mdCodeText);
    }
  });

  it('cuts long code lines at the width with a mark, never re-flowing them as prose', () => {
    const out = texts(renderMarkdown('```\nabcdefghij  klmnopqrst\n  indented\n```', 12));
    expect(out).toEqual(['┌─', '│ abcdefghij', '↪   klmnopqr', '↪ st', '│   indented', '└─']);
  });

  it('shows text that renders to nothing (a link definition alone) as it is', () => {
    expect(texts(renderMarkdown('[ref]: https://x.dev/a', 40))).toEqual(['[ref]: https://x.dev/a']);
  });

  it('shows HTML as the text it is', () => {
    expect(texts(renderMarkdown('<div onclick="x">hi</div>\n\n<b>bold?</b>', 40))).toEqual([
      '<div onclick="x">hi</div>',
      '',
      '<b>bold?</b>',
    ]);
  });

  it('lets no control or bidi character through, not even one the parser decodes from an entity', () => {
    const out = renderMarkdown('a &#x202e;b&#x1b; [x](http://a/&#x9b;) `c`', 40);
    for (const l of out) expect(l.text).not.toMatch(UNSAFE);
    expect(out[0].text).toContain('a ');
  });

  it('hands back only the text of the code it was given', () => {
    const code = 'fn main() {\n    let s = "x"; /* multi\n line */\n}\n';
    const lines = highlightLines('rust', code)!;
    expect(lines.map((l) => l.map((r) => r[0]).join('')).join('\n')).toBe(code);
  });
});

describe('loading ahead of need', () => {
  it('warms the parser and the common grammars step by step, then stops', () => {
    let steps = 1;
    while (warmStep()) steps++;
    expect(steps).toBeGreaterThan(2);
    expect(steps).toBeLessThan(12);
    expect(warmStep()).toBe(false);
    // Rendering still works after (the steps load, they do not configure).
    expect(styleOf(renderMarkdown('```python\ndef f(): pass\n```', 40), 'def')).toBe(Style.hlKeyword);
  });
});

describe('hostile answers', () => {
  it('10,000 nested quotes: no stack overflow, shown plain, nothing lost', () => {
    const src = `${'>'.repeat(10_000)} deep`;
    const out = renderMarkdown(src, 80);
    // Shown plain: every character kept (the line breaks at the space before the word).
    expect(out.map((l) => l.text).join('')).toBe(src.replace(' deep', 'deep'));
  });

  it('lists nested 2,000 deep and 10,000 list markers on a line: no crash, the words kept', () => {
    const deep = Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i * 2)}- w${i}`).join('\n');
    const out = renderMarkdown(deep, 80);
    const all = out.map((l) => l.text).join('\n');
    expect(all).toContain('w0');
    expect(all).toContain('w1999');
    const marks = renderMarkdown(`${'- '.repeat(10_000)}end`, 80);
    expect(marks.map((l) => l.text).join('')).toContain('end');
  });

  it('a huge table and a 1 MB line lay out in bounded time, every line within the width', () => {
    const table = `| a | b |\n|---|---|\n${Array.from({ length: 20_000 }, (_, i) => `| ${i} | v${i} |`).join('\n')}`;
    let t0 = performance.now();
    const tout = renderMarkdown(table, 80);
    expect(tout.length).toBe(20_002);
    const one = 'word '.repeat(200_000);
    const lout = renderMarkdown(one, 80);
    expect(lout.length).toBeGreaterThan(12_000);
    for (const l of lout) expect(displayWidth(l.text)).toBeLessThanOrEqual(80);
    const codeLine = `\`\`\`ts\n${'x'.repeat(1_000_000)}\n\`\`\``;
    const cout = renderMarkdown(codeLine, 80);
    expect(cout[0].text).toBe('┌─ ts · too long to highlight');
    expect(cout.length).toBe(2 + Math.ceil(1_000_000 / 78));
    t0 = performance.now() - t0;
    // Generous (a shared machine): the point is no quadratic blow-up (that would be minutes).
    expect(t0).toBeLessThan(30_000);
  });

  it('a code block with ESC, OSC and C1 bytes reaches the lines without them (sanitised before parsing)', () => {
    const answer =
      '```bash\necho \x1b[31mred\x1b[0m \x1b]52;c;aGk=\x07 \x9b2J \x1b]8;;http://x\x1b\\\\link\n```';
    const lines = turnBlock(turn(answer), null, 80, null);
    const body = lines.filter((l) => l.spans);
    expect(body.map((l) => l.text).join('\n')).toContain('echo red');
    for (const l of lines) {
      expect(l.text).not.toMatch(UNSAFE);
      for (const [t] of l.spans ?? []) expect(t).not.toMatch(UNSAFE);
    }
  });

  it('a 100,000-line code block is laid out once, then served from the cache', () => {
    const code = Array.from({ length: 100_000 }, (_, i) => `let x${i} = ${i};`).join('\n');
    const t = turn(`\`\`\`js\n${code}\n\`\`\``);
    const first = turnBlock(t, null, 100, null);
    expect(first.length).toBeGreaterThan(100_000);
    expect(first.find((l) => l.text.includes('too long to highlight'))).toBeDefined();
    const t0 = performance.now();
    const again = turnBlock(t, null, 100, null);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(again).toBe(first);
  });
});

describe('answers in a turn', () => {
  it('renders the answer but leaves the question as typed', () => {
    const lines = turnBlock(turn('## Title\n\n- item', '## not a heading\n- not a list'), null, 60, null);
    const q = lines.filter((l) => l.role === 'q').map((l) => l.text);
    expect(q).toEqual(['Q ## not a heading', '  - not a list']);
    expect(q.every((_, i) => lines.filter((l) => l.role === 'q')[i].spans === undefined)).toBe(true);
    const a = lines.filter((l) => l.role === 'a');
    expect(a[0].text).toBe('A Title');
    expect(a[0].lead).toBe(true);
    expect(a.map((l) => l.text)).toContain('  • item');
    // Every rendered line's runs join to its text.
    for (const l of a)
      expect(l.spans!.map((s) => s[0]).join('')).toBe(
        l.text.startsWith('A ') ? `  ${l.text.slice(2)}` : l.text,
      );
  });
});

describe('the monochrome theme (NO_COLOR)', () => {
  it('shows the structure with attributes only, no colour', () => {
    const mono = attrTable('mono');
    const colour = attrTable('256');
    const DEF = 0x1ff;
    const md = [Style.mdH1, Style.mdH2, Style.mdH3, Style.mdStrong, Style.mdEm, Style.mdCode, Style.mdLink];
    for (const st of [...md, Style.hlKeyword, Style.hlString, Style.hlComment, Style.mdCodeText]) {
      const a = mono[st];
      expect((a >> 9) & 0x1ff, Style[st]).toBe(DEF);
      expect(a & 0x1ff, Style[st]).toBe(DEF);
    }
    // Heading levels, emphasis, code and links stay visible by their attributes, each level its own.
    for (const st of md) expect(mono[st] >> 18, Style[st]).not.toBe(0);
    expect(new Set([Style.mdH1, Style.mdH2, Style.mdH3].map((s) => mono[s])).size).toBe(3);
    // With colour, highlighted tokens differ from plain code.
    expect((colour[Style.hlKeyword] >> 9) & 0x1ff).not.toBe((colour[Style.mdCodeText] >> 9) & 0x1ff);
  });
});

describe('wrapping styled runs', () => {
  it('breaks exactly where wrap() breaks the same text, keeping each part its style', () => {
    const samples = [
      'the quick brown fox jumps over the lazy dog',
      'averyveryverylongwordwithoutspaces and then some',
      '漢字かな混じり文 mixed with words',
      '  leading  spaces   inside   ',
    ];
    for (const s of samples) {
      for (const w of [1, 5, 9, 16]) {
        // Cut the text into runs of 3 characters with alternating tags.
        const runs: Run<number>[] = [];
        for (let i = 0; i < s.length; i += 3) runs.push([s.slice(i, i + 3), (i / 3) % 2]);
        const lines = wrapRuns(runs, w);
        expect(lines.map((l) => l.map((r) => r[0]).join(''))).toEqual(wrap(s, w));
        // Every character keeps the tag of the run it came from.
        for (const l of lines)
          for (const [t, tag] of l) expect(runs.some((r) => r[1] === tag && r[0].includes(t[0]))).toBe(true);
      }
    }
  });
});
