import { describe, expect, it } from 'vitest';
import {
  COMMANDS,
  type CompletionSource,
  commandHelp,
  complete,
  completeLine,
  parseCommandLine,
  unknownCommand,
} from '../../src/keymap/index.js';

const src: CompletionSource = {
  sessions: () => [
    { sid: 'k3m9x2qa', label: 'rust' },
    { sid: 'k3p00000', label: 'two words' },
    { sid: 'p7qd0c1m', label: 'evil\x1b]52;c;x\x07' },
  ],
  turns: (sid) =>
    sid === 'k3m9x2qa'
      ? ['k3m9x2qa-000001', 'k3m9x2qa-000002', 'k3m9x2qa-000010']
      : sid === 'p7qd0c1m'
        ? null
        : [],
};

describe('the command table', () => {
  it('has unique names and aliases, and the commands the issue names', () => {
    const all = COMMANDS.flatMap((c) => [c.name, ...('aliases' in c ? c.aliases : [])]);
    expect(new Set(all).size).toBe(all.length);
    expect(COMMANDS.map((c) => c.name)).toEqual([
      'cd',
      'find',
      'branches',
      'tree',
      'list',
      'path',
      'show',
      'chain-check',
      'export',
      'help',
      'quit',
    ]);
  });

  it('gives both modes their help from the same rows; the browser leaves out what it cannot run', () => {
    const repl = commandHelp('repl');
    const browser = commandHelp('browser');
    expect(repl[0]).toEqual(['/cd <bates|seq|label>', expect.stringContaining('go to a turn')]);
    expect(browser[0]).toEqual([':cd <bates|seq|label>', repl[0][1]]);
    expect(repl.map(([u]) => u)).toContain('/export [bates]');
    expect(browser.map(([u]) => u)).not.toContain(':export [bates]');
    expect(browser.length).toBe(repl.length - 1);
  });
});

describe('parseCommandLine', () => {
  it('in the REPL: a command starts with /, any other line is a question, // asks a question starting with /', () => {
    expect(parseCommandLine('  how does WAL work?  ', 'repl')).toEqual({
      kind: 'question',
      text: 'how does WAL work?',
    });
    expect(parseCommandLine('//usr/bin or /bin?', 'repl')).toEqual({
      kind: 'question',
      text: '/usr/bin or /bin?',
    });
    expect(parseCommandLine('   ', 'repl')).toEqual({ kind: 'empty' });
    expect(parseCommandLine('/cd k3m9x2qa-000042', 'repl')).toMatchObject({
      kind: 'command',
      name: 'cd',
      arg: 'k3m9x2qa-000042',
    });
    expect(parseCommandLine('/find  write ahead log ', 'repl')).toMatchObject({
      kind: 'command',
      name: 'find',
      arg: 'write ahead log',
    });
    expect(parseCommandLine('/Q', 'repl')).toMatchObject({ kind: 'command', name: 'quit' });
    expect(parseCommandLine('/?', 'repl')).toMatchObject({ kind: 'command', name: 'help' });
  });

  it('in the browser every line is a command; a typed : or / is allowed', () => {
    expect(parseCommandLine('cd 42', 'browser')).toMatchObject({ kind: 'command', name: 'cd', arg: '42' });
    expect(parseCommandLine(':branches', 'browser')).toMatchObject({
      kind: 'command',
      name: 'branches',
      arg: '',
    });
    expect(parseCommandLine('/find wal', 'browser')).toMatchObject({
      kind: 'command',
      name: 'find',
      arg: 'wal',
    });
    expect(parseCommandLine('how is this', 'browser')).toEqual({ kind: 'unknown', name: 'how' });
  });

  it('says what is wrong: an unknown command, a missing argument, an argument too many', () => {
    expect(parseCommandLine('/frobnicate now', 'repl')).toEqual({ kind: 'unknown', name: 'frobnicate' });
    expect(unknownCommand('frobnicate', 'repl')).toBe(
      "unknown command '/frobnicate' (/help lists the commands)",
    );
    expect(unknownCommand('x', 'browser')).toBe("unknown command ':x' (:help lists the commands)");
    // a typo names the command it most likely meant, among those of its mode (no /export in the browser)
    expect(unknownCommand('brnaches', 'repl')).toBe(
      "unknown command '/brnaches' (did you mean /branches? /help lists the commands)",
    );
    expect(unknownCommand('exprot', 'repl')).toBe(
      "unknown command '/exprot' (did you mean /export? /help lists the commands)",
    );
    expect(unknownCommand('exprot', 'browser')).toBe("unknown command ':exprot' (:help lists the commands)");
    expect(parseCommandLine('/cd', 'repl')).toEqual({
      kind: 'bad',
      name: 'cd',
      message: 'usage: /cd <bates|seq|label>',
    });
    expect(parseCommandLine('find', 'browser')).toEqual({
      kind: 'bad',
      name: 'find',
      message: 'usage: :find QUERY',
    });
    expect(parseCommandLine('/list everything', 'repl')).toEqual({
      kind: 'bad',
      name: 'list',
      message: '/list takes no argument',
    });
    expect(parseCommandLine('/cd a b', 'repl')).toMatchObject({ kind: 'bad', name: 'cd' });
  });
});

describe('completion', () => {
  it('complete: the matches and the prefix they share', () => {
    expect(complete('k3', ['k3m9', 'k3p0', 'x'])).toEqual({ matches: ['k3m9', 'k3p0'], common: 'k3' });
    expect(complete('k3m', ['k3m9', 'k3p0'])).toEqual({ matches: ['k3m9'], common: 'k3m9' });
    expect(complete('z', ['k3m9'])).toEqual({ matches: [], common: 'z' });
  });

  it('completes command names (with the space of a command that takes an argument)', () => {
    expect(completeLine('/ch', 'repl', src)).toMatchObject({
      start: 0,
      matches: ['/chain-check'],
      replacement: '/chain-check',
    });
    expect(completeLine('/c', 'repl', src)).toMatchObject({
      matches: ['/cd ', '/chain-check'],
      replacement: '/c',
    });
    expect(completeLine('/fi', 'repl', src).replacement).toBe('/find ');
    expect(completeLine('ex', 'browser', src).matches).toEqual([]); // export is not a browser command
    expect(completeLine('/ex', 'repl', src).matches).toEqual(['/export ']);
    expect(completeLine('a question', 'repl', src).matches).toEqual([]);
  });

  it('completes a target: a session id (as <sid>-), then its Bates ids; labels of one plain word; ..', () => {
    expect(completeLine('/cd k3', 'repl', src)).toMatchObject({
      start: 4,
      word: 'k3',
      matches: ['k3m9x2qa-', 'k3p00000-'],
      replacement: 'k3',
    });
    expect(completeLine('/cd k3m', 'repl', src).replacement).toBe('k3m9x2qa-');
    expect(completeLine('/show k3m9x2qa-', 'repl', src)).toMatchObject({
      matches: ['k3m9x2qa-000001', 'k3m9x2qa-000002', 'k3m9x2qa-000010'],
      replacement: 'k3m9x2qa-0000',
    });
    expect(completeLine('cd k3m9x2qa-00001', 'browser', src).replacement).toBe('k3m9x2qa-000010');
    expect(completeLine('/cd ru', 'repl', src).replacement).toBe('rust');
    expect(completeLine('/cd .', 'repl', src).replacement).toBe('..');
    // hostile or many-word labels are never offered
    expect(completeLine('/cd ', 'repl', src).matches).toEqual([
      '..',
      'k3m9x2qa-',
      'k3p00000-',
      'p7qd0c1m-',
      'rust',
    ]);
    // a session whose turns are not at hand is named, for the browser to load
    expect(completeLine(':cd p7qd0c1m-', 'browser', src)).toMatchObject({ matches: [], wanted: 'p7qd0c1m' });
    // neither a query nor a command without a target completes ids
    expect(completeLine('/find k3', 'repl', src).matches).toEqual([]);
    expect(completeLine('/list k3', 'repl', src).matches).toEqual([]);
  });
});
