/**
 * JSON text of a value another tool's file held. JSON.parse takes any depth (V8 parses without recursion), but
 * JSON.stringify recurses and throws RangeError a few thousand levels down: a record nested that deep must cost
 * itself, never the file it is in.
 */

/** What a problem says of a record that cannot be written out again. */
export const TOO_DEEP = 'nested too deeply to keep';

/** `JSON.stringify(v)`, or undefined when `v` nests too deeply for it (or is not JSON: a function, undefined). */
export function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}
