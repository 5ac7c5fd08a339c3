import { AskError } from './errors.js';

/**
 * Splits a command line into argv the way a POSIX shell splits words, and does nothing else: no variable,
 * command, tilde or glob expansion, no redirection, no pipes. So `$HOME`, `$(...)`, backticks and `*` reach the
 * program literally.
 *   - unquoted whitespace separates words; `\x` outside quotes is a literal x
 *   - '...' is literal; "..." is literal except `\"`, `\\`, `\$`, `` \` `` (the backslash is dropped)
 * A word with an unquoted shell operator character (`|`, `;`, `&`, `<`, `>`, `(`, `)`) is refused rather than passed on as a surprising argument:
 * put pipelines in a script and name the script.
 */
export function splitArgv(line: string, what = '--answer-cmd'): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let operator = false;
  let i = 0;
  const end = () => {
    if (!inWord) return;
    if (operator) {
      throw new AskError(
        'config',
        `${what} runs without a shell: '${cur}' would be a literal argument; quote it, or put pipelines and redirections in a script`,
      );
    }
    out.push(cur);
    cur = '';
    inWord = false;
    operator = false;
  };
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      end();
      i++;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new AskError('config', `${what} has an unterminated ' quote`);
      cur += line.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (c === '"') {
      i++;
      inWord = true;
      for (;;) {
        if (i >= line.length) throw new AskError('config', `${what} has an unterminated " quote`);
        const d = line[i];
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) {
          cur += line[i + 1];
          i += 2;
        } else {
          cur += d;
          i++;
        }
      }
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new AskError('config', `${what} ends with a lone backslash`);
      cur += line[i + 1];
      inWord = true;
      i += 2;
    } else {
      if ('|&;<>()'.includes(c)) operator = true;
      cur += c;
      inWord = true;
      i++;
    }
  }
  end();
  if (out.length === 0) throw new AskError('config', `${what} is empty`);
  return out;
}
