/**
 * Handing the terminal to another program and taking it back (`r`: the agent runs with our stdio). The same
 * steps as blessed's own Program.pause/resume and Screen.spawn (neo-blessed lib/program.js, lib/widgets/screen.js),
 * done here so that the keypad mode and the mouse are given back too, and so that nothing blessed draws while the
 * program runs (a resize repaints) reaches its screen:
 *   out: the keypad and the mouse off, the cursor shown, the normal screen back; raw mode off and our input
 *        paused (the program reads the terminal, not us); our output swallowed;
 *   back: output, raw mode and input restored; the alternate screen entered again (cleared: every cell is drawn
 *        again by the caller's next paint), the cursor hidden, the mouse on again when it was.
 */
import type { BlessedScreen } from './terminal.js';

interface Pausable {
  program: {
    input: NodeJS.ReadStream & { setRawMode?: (raw: boolean) => void };
    output: NodeJS.WriteStream;
    put: { keypad_local(): void; keypad_xmit(): void };
    enableMouse(): void;
    disableMouse(): void;
    flush(): void;
  };
  leave(): void;
  enter(): void;
}

/**
 * Each step on its own: the terminal may be gone (an ssh drop while the agent runs), and setRawMode on a hung-up
 * tty throws EIO. A step that fails must not stop the others, nor the caller's way out (term/app.ts cleanup).
 */
function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // the terminal is gone: nothing to give back
  }
}

/** Leaves the screen to another program; the function returned takes it back (once) and never throws. */
export function leaveScreen(screen: BlessedScreen, opts: { mouse: boolean }): () => void {
  const s = screen as unknown as Pausable;
  const p = s.program;
  if (opts.mouse) attempt(() => p.disableMouse());
  attempt(() => s.leave()); // keypad off, cursor shown, normal screen, flushed
  attempt(() => p.flush());
  const write = p.output.write;
  p.output.write = (() => true) as typeof write;
  attempt(() => p.input.setRawMode?.(false));
  attempt(() => p.input.pause());
  let back = false;
  return () => {
    if (back) return;
    back = true;
    p.output.write = write;
    attempt(() => p.input.setRawMode?.(true));
    attempt(() => p.input.resume());
    attempt(() => s.enter()); // alternate screen (cleared), keypad on, cursor hidden, buffers reset
    if (opts.mouse) attempt(() => p.enableMouse());
    attempt(() => p.flush());
  };
}
