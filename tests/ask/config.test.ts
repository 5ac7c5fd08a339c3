import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AskError,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  loadAnswerConfig,
  providerFromOptions,
  splitArgv,
} from '../../src/ask/index.js';
import { tempDir } from '../support/tmp.js';

function home(config?: string): NodeJS.ProcessEnv {
  const d = tempDir('arborist-home-');
  if (config !== undefined) writeFileSync(join(d, 'config.json'), config);
  return { ARBORIST_HOME: d };
}

function configError(fn: () => unknown): AskError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AskError);
    const err = e as AskError;
    expect(err.code).toBe('config');
    expect(err.kind).toBe('usage');
    expect(err.message).not.toContain('\n');
    return err;
  }
  throw new Error('expected a config error');
}

describe('splitArgv: words like a shell, nothing else', () => {
  it.each([
    ['llm', ['llm']],
    ['  llm   -m  gpt-4o  ', ['llm', '-m', 'gpt-4o']],
    [`llm -m "gpt 4o" --system 'be brief'`, ['llm', '-m', 'gpt 4o', '--system', 'be brief']],
    [`claude -p --output-format text`, ['claude', '-p', '--output-format', 'text']],
    [`a\\ b c`, ['a b', 'c']],
    [`"say \\"hi\\" \\\\ \\$x \\n"`, ['say "hi" \\ $x \\n']],
    [`'it''s' "x"'y'z`, ['its', 'xyz']],
    [`run "" ''`, ['run', '', '']],
    [
      `echo $HOME ~ *.txt '$(id)' \`id\` \${PATH}`,
      ['echo', '$HOME', '~', '*.txt', '$(id)', '`id`', '$' + '{PATH}'],
    ],
    [`llm '|' ";" 'a>b' \\;`, ['llm', '|', ';', 'a>b', ';']],
    [`ollama\trun\nllama3.2`, ['ollama', 'run', 'llama3.2']],
  ])('%s', (line, argv) => {
    expect(splitArgv(line)).toEqual(argv);
  });

  it.each([
    ['', /is empty/],
    ['   ', /is empty/],
    [`llm "unterminated`, /unterminated " quote/],
    [`llm 'unterminated`, /unterminated ' quote/],
    [`llm \\`, /lone backslash/],
    ['llm | tee log', /without a shell: '\|'/],
    ['llm; rm x', /without a shell: 'llm;'/],
    ['llm > out', /without a shell/],
    ['llm && x', /without a shell/],
    ['llm a>b', /without a shell/],
    ['llm $(cat prompt.txt)', /without a shell: '\$\(cat'/],
  ])('refuses %j', (line, re) => {
    expect(configError(() => splitArgv(line)).message).toMatch(re);
  });
});

describe('config.json', () => {
  it('no file: no settings', () => {
    const env = home();
    expect(loadAnswerConfig(env)).toEqual({ path: join(env.ARBORIST_HOME!, 'config.json') });
    expect(providerFromOptions({ env })).toEqual({ kind: 'builtin' });
  });

  it('other sections are not ours', () => {
    const env = home('{"keys": {"quit": "x"}}');
    expect(providerFromOptions({ env })).toEqual({ kind: 'builtin' });
  });

  it('answer.command as a command line or a list, with limits', () => {
    const env = home(
      JSON.stringify({ answer: { command: `llm -m "gpt 4o"`, timeout_ms: 5000, max_bytes: 4096 } }),
    );
    expect(providerFromOptions({ env })).toEqual({
      kind: 'command',
      argv: ['llm', '-m', 'gpt 4o'],
      timeoutMs: 5000,
      maxBytes: 4096,
    });
    const env2 = home(JSON.stringify({ answer: { command: ['ollama', 'run', 'llama3.2'] } }));
    expect(providerFromOptions({ env: env2 })).toEqual({
      kind: 'command',
      argv: ['ollama', 'run', 'llama3.2'],
      timeoutMs: DEFAULT_TIMEOUT_MS,
      maxBytes: DEFAULT_MAX_BYTES,
    });
    expect(DEFAULT_TIMEOUT_MS).toBe(120_000);
    expect(DEFAULT_MAX_BYTES).toBe(1024 * 1024);
  });

  it('--answer-cmd wins over answer.command, and keeps the config limits', () => {
    const env = home(JSON.stringify({ answer: { command: 'llm', timeout_ms: 9000 } }));
    expect(providerFromOptions({ env, answerCmd: `claude -p` })).toEqual({
      kind: 'command',
      argv: ['claude', '-p'],
      timeoutMs: 9000,
      maxBytes: DEFAULT_MAX_BYTES,
    });
    expect(providerFromOptions({ env, answerCmd: 'x', timeoutMs: 10, maxBytes: 20 })).toMatchObject({
      timeoutMs: 10,
      maxBytes: 20,
    });
  });

  it('--answer is manual, and a broken config does not stand in its way', () => {
    const env = home('{ not json');
    expect(providerFromOptions({ env, answer: 'forty-two' })).toEqual({
      kind: 'manual',
      answer: 'forty-two',
    });
    expect(providerFromOptions({ env, answer: '' })).toEqual({ kind: 'manual', answer: '' });
  });

  it('--answer with --answer-cmd is a usage error', () => {
    configError(() => providerFromOptions({ env: home(), answer: 'a', answerCmd: 'b' }));
  });

  it.each([
    ['{ not json', /config\.json is not valid JSON: /],
    ['[]', /must hold a JSON object/],
    ['{"answer": "llm"}', /"answer" must be an object/],
    ['{"answer": {"command": 3}}', /answer\.command must be a command line or a non-empty list of strings/],
    ['{"answer": {"command": []}}', /answer\.command must be/],
    ['{"answer": {"command": ""}}', /answer\.command is empty/],
    ['{"answer": {"command": "llm | tee x"}}', /without a shell/],
    ['{"answer": {"command": "llm", "timeout_ms": -1}}', /answer\.timeout_ms must be a whole number/],
    ['{"answer": {"command": "llm", "timeout_ms": "120"}}', /answer\.timeout_ms must be a whole number/],
    ['{"answer": {"command": "llm", "max_bytes": 1.5}}', /answer\.max_bytes must be a whole number/],
    ['{"answer": {"command": "llm", "timeout": 5}}', /unknown setting answer\.timeout/],
  ])('malformed config %j is one clear line', (text, re) => {
    const env = home(text);
    const e = configError(() => providerFromOptions({ env }));
    expect(e.message).toMatch(re);
    expect(e.message).toContain(join(env.ARBORIST_HOME!, 'config.json'));
  });

  it('an unreadable config is one clear line', () => {
    const d = tempDir('arborist-home-');
    mkdirSync(join(d, 'config.json'));
    expect(configError(() => loadAnswerConfig({ ARBORIST_HOME: d })).message).toMatch(
      /cannot be read \(EISDIR\)/,
    );
  });
});
