import { createInterface, type Interface } from 'node:readline';
import { ask } from '../../ask/index.js';
import type { ProviderSpec } from '../../ask/types.js';
import {
  type CommandName,
  commandHelp,
  completeLine,
  parseCommandLine,
  unknownCommand,
} from '../../keymap/index.js';
import { ArboristError, asArboristError, type Shard, type TurnTarget } from '../../store/index.js';
import { StreamSanitizer } from '../../text/stream.js';
import type { Command } from '../command.js';
import { chainCheckCmd } from '../commands/chain.js';
import { exportCmd } from '../commands/export.js';
import { findCmd } from '../commands/find.js';
import { printNodeLines } from '../commands/format.js';
import { branchesCmd, listCmd, pathCmd, showCmd, treeCmd } from '../commands/read.js';
import type { Context } from '../context.js';
import { oneLine, table, truncate } from '../output.js';
import { printable, shardCompletions } from './complete.js';

export interface ReplOptions {
  /** Its `out` is the REPL's: no colour unless interactive. */
  ctx: Context;
  shard: Shard;
  provider: ProviderSpec;
  noCache: boolean;
  /** The label of the session the first question creates (`--new --label L`). */
  label?: string;
  /** Where the REPL starts: a session (or none yet) and its current turn (or none: its top). */
  sid: string | null;
  current: string | null;
  /** A person at a terminal: prompt, line editing, history, completion, colour. Else one block per line read. */
  interactive: boolean;
}

const HINT = '(Ctrl-D or /quit leaves; Ctrl-C cancels a running answer)';

/**
 * The line-mode REPL of `arborist session`. Each line read is a question (a turn under the current one, whose
 * answer streams below it, and which becomes current) or a `/command` of the table in src/keymap/commands.ts;
 * lines are handled one at a time, in order, however fast they arrive (a pipe delivers them all at once). The
 * read-only commands are the CLI's own (`/tree` is `arborist tree`), run on the same shard.
 */
export class Repl {
  private rl!: Interface;
  private readonly queue: string[] = [];
  private busy = false;
  private closed = false;
  private quitting = false;
  private done = false;
  /** The running answer's cancel, while a question is being answered. */
  private running: AbortController | null = null;
  /** Piped mode: the worst exit code of any line (2 a refused line, 1 damage found). */
  private worst = 0;
  private sid: string | null;
  private current: string | null;
  private resolve!: (code: number) => void;
  private readonly onSignal = () => this.interrupt(true);

  constructor(private readonly o: ReplOptions) {
    this.sid = o.sid;
    this.current = o.current;
  }

  run(): Promise<number> {
    return new Promise<number>((resolve) => {
      this.resolve = resolve;
      const interactive = this.o.interactive;
      this.rl = createInterface({
        input: process.stdin,
        output: interactive ? process.stdout : undefined,
        terminal: interactive,
        historySize: 1000,
        removeHistoryDuplicates: true,
        crlfDelay: Number.POSITIVE_INFINITY,
        completer: interactive ? (line: string) => this.complete(line) : undefined,
      });
      this.rl.on('line', (line) => {
        this.queue.push(line);
        void this.pump();
      });
      this.rl.on('close', () => {
        this.closed = true;
        void this.pump();
      });
      // At a terminal Ctrl-C is a key readline reports; a signal (kill -INT, or Ctrl-C on a TERM=dumb tty) too.
      if (interactive) this.rl.on('SIGINT', () => this.interrupt(false));
      process.on('SIGINT', this.onSignal);
      if (interactive) {
        this.out(`${this.where()} · /help lists the commands · Ctrl-D leaves\n`);
        this.prompt();
      }
    });
  }

  // ---- the loop --------------------------------------------------------------------------------------------------

  private async pump(): Promise<void> {
    if (this.busy || this.done) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.quitting) await this.handle(this.queue.shift()!);
    } finally {
      this.busy = false;
    }
    if (this.quitting || this.closed) this.finish();
    else if (this.o.interactive) this.prompt();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    process.off('SIGINT', this.onSignal);
    // Ctrl-D leaves the cursor after the prompt: the shell's prompt goes on a line of its own.
    if (this.o.interactive && this.closed && !this.quitting) this.out('\n');
    this.rl.close();
    this.resolve(this.o.interactive ? 0 : this.worst);
  }

  /** Ctrl-C: cancels a running answer; at the prompt it clears the line, or on an empty one says how to leave. */
  private interrupt(signal: boolean): void {
    if (this.running) {
      this.running.abort();
      return;
    }
    if (signal && !process.stdin.isTTY) {
      // A script that is interrupted stops (130: the shell's code for SIGINT).
      this.worst = 130;
      this.quitting = true;
      this.finish();
      return;
    }
    if (this.o.interactive && this.rl.line !== '') {
      this.rl.write(null, { ctrl: true, name: 'e' });
      this.rl.write(null, { ctrl: true, name: 'u' });
      return;
    }
    this.out(`${this.o.interactive ? '\n' : ''}${HINT}\n`);
    if (this.o.interactive && !this.busy) this.prompt();
  }

  private prompt(): void {
    const c = this.o.ctx.out.color;
    const at = this.current ?? (this.sid ? `${this.sid}` : 'new session');
    this.rl.setPrompt(`${c.cyan(oneLine(at))}> `);
    this.rl.prompt();
  }

  private where(): string {
    if (this.current) return `at ${this.current}`;
    if (this.sid) return `session ${this.sid}: no turn yet (the next question is its first)`;
    return 'a new session (the first question starts it)';
  }

  private out(s: string): void {
    this.o.ctx.out.out(s);
  }

  /** One clear line on stderr; the REPL goes on. */
  private fail(message: string): void {
    this.o.ctx.out.err(`arborist: ${truncate(oneLine(message), 300)}\n`);
    this.worst = Math.max(this.worst, 2);
  }

  private async handle(line: string): Promise<void> {
    const p = parseCommandLine(line, 'repl');
    try {
      if (p.kind === 'question') await this.ask(p.text);
      else if (p.kind === 'unknown') this.fail(unknownCommand(p.name, 'repl'));
      else if (p.kind === 'bad') this.fail(p.message);
      else if (p.kind === 'command') await this.command(p.name, p.arg);
    } catch (err) {
      const e = asArboristError(this.o.shard.path, err);
      if (e) this.fail(e.message);
      else this.fail(`internal error: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  // ---- questions -------------------------------------------------------------------------------------------------

  /**
   * A question under the current turn, in that turn's session (as `ask --parent`): after `/cd` to a turn of another
   * session the new turn joins that session, and the REPL moves there with it.
   */
  private async ask(question: string): Promise<void> {
    const abort = new AbortController();
    this.running = abort;
    const clean = new StreamSanitizer();
    let streamed = '';
    try {
      const r = await ask(this.o.shard, {
        question,
        parent: this.current ?? undefined,
        session: this.current === null ? (this.sid ?? undefined) : undefined,
        label: this.current === null && this.sid === null ? this.o.label : undefined,
        provider: this.o.provider,
        noCache: this.o.noCache,
        signal: abort.signal,
        onChunk: (t) => {
          streamed += t;
          this.out(clean.write(t));
        },
      });
      this.out(clean.end());
      if (streamed !== '' && !streamed.endsWith('\n')) this.out('\n');
      this.out(`${this.o.ctx.out.color.dim(`[${r.bates}] ${r.audit}`)}\n`);
      this.sid = r.sid;
      this.current = r.bates;
    } catch (err) {
      if (!abort.signal.aborted) throw err;
      if (streamed !== '' && !streamed.endsWith('\n')) this.out('\n');
      // Not a failure of the script: the person asked for it.
      this.o.ctx.out.err('arborist: answer cancelled; no turn was added\n');
    } finally {
      this.running = null;
    }
  }

  // ---- commands --------------------------------------------------------------------------------------------------

  private async command(name: CommandName, arg: string): Promise<void> {
    switch (name) {
      case 'cd':
        return this.cd(arg);
      case 'find':
        return this.runCli(findCmd, [arg]);
      case 'branches':
        return this.runCli(branchesCmd, [this.sessionOf(arg)]);
      case 'tree':
        return this.runCli(treeCmd, [this.sessionOf(arg)]);
      case 'list':
        return this.runCli(listCmd, []);
      case 'path':
        return this.runCli(pathCmd, [this.turnOf(arg)]);
      case 'show':
        return this.runCli(showCmd, [this.turnOf(arg)]);
      case 'chain-check':
        return this.runCli(chainCheckCmd, []);
      case 'export':
        return this.runCli(exportCmd, [this.turnOf(arg)]);
      case 'help':
        return this.help();
      case 'quit':
        this.quitting = true;
        return;
    }
  }

  /** Runs a CLI command on the REPL's shard and output; damage it finds (exit 1) counts for a script. */
  private async runCli(cmd: Command, positionals: string[]): Promise<void> {
    const code = await cmd.run({ values: {}, positionals }, this.o.ctx);
    this.worst = Math.max(this.worst, code);
  }

  private target(arg: string): TurnTarget {
    return this.o.shard.resolveTurn(arg, { sid: this.sid, bates: this.current });
  }

  private cd(arg: string): void {
    const t = this.target(arg);
    this.sid = t.sid;
    this.current = t.bates;
    if (t.bates === null) {
      this.out(`${t.sid}: the next question starts a new tree in this session\n`);
      return;
    }
    printNodeLines(this.o.ctx, [this.o.shard.requireNode(t.bates)]);
  }

  /** The session an optional argument names (any turn of it, or it), else the current one. */
  private sessionOf(arg: string): string {
    if (arg !== '') return this.target(arg).sid;
    if (this.sid === null) throw new ArboristError('input', 'no session yet: ask a question first');
    return this.sid;
  }

  /** The turn an optional argument names, else the current one. */
  private turnOf(arg: string): string {
    const t = arg !== '' ? this.target(arg) : { bates: this.current, sid: this.sid };
    if (t.bates !== null) return t.bates;
    throw new ArboristError(
      'input',
      t.sid === null ? 'no turn yet: ask a question first' : `session ${t.sid} has no turn here yet`,
    );
  }

  private help(): void {
    const rows = commandHelp('repl');
    this.out(
      [
        'Any line that is not a command is a question: it is asked under the current turn, and its turn becomes',
        'the current one (//text asks "/text"). Commands:',
        table(rows.map(([u, h]) => [`  ${u}`, h])),
        'Tab completes commands and ids, Up and Down recall lines, Ctrl-C cancels a running answer, Ctrl-D leaves.',
        '',
      ].join('\n'),
    );
  }

  private complete(line: string): [string[], string] {
    try {
      const c = completeLine(line, 'repl', shardCompletions(this.o.shard));
      return [printable(c.matches), c.word];
    } catch {
      // A shard that cannot be read now completes nothing; the next command says why.
      return [[], line];
    }
  }
}
