/**
 * The key map: the rebindable actions (actions.ts) with a user's `$ARBORIST_HOME/keys.json` applied (gitui-style:
 * an action named there takes exactly the keys given), and every context's rules (contexts.ts) resolved against
 * those keys. No I/O and no terminal here.
 */
import { ACTIONS, type ActionDef, type ActionId } from './actions.js';
import { CONTEXTS, type Context, type KeyAction, type Rule } from './contexts.js';
import { isValidKey } from './names.js';

export class KeymapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeymapError';
  }
}

export interface Binding {
  id: ActionId;
  group: ActionDef['group'];
  keys: string[];
  description: string;
}

export interface Keymap {
  bindings: Binding[];
  /** key name -> rebindable action */
  byKey: Map<string, ActionId>;
  keysOf(id: ActionId): string[];
  /**
   * What a key means in a context (src/keymap/contexts.ts): the id of the first rule naming it, or null (the key
   * does nothing there). `ch` is the character the key types, if any.
   */
  resolve(context: Context, key: string, ch?: string): KeyAction | null;
}

/**
 * Builds the key map: the defaults, with each action named in `overrides` taking the keys given there (a string
 * or a list of strings). An unknown action, an invalid key, or a key bound to two actions is refused with a
 * one-line reason (KeymapError).
 */
export function buildKeymap(overrides: unknown = {}, source = 'keys.json'): Keymap {
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new KeymapError(`${source}: expected an object mapping action ids to keys`);
  }
  const known = new Map(ACTIONS.map((a) => [a.id as string, a]));
  const given = overrides as Record<string, unknown>;
  for (const [id, v] of Object.entries(given)) {
    if (!known.has(id)) {
      throw new KeymapError(
        `${source}: unknown action '${id}' (known: ${ACTIONS.map((a) => a.id).join(', ')})`,
      );
    }
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.some((k) => typeof k !== 'string')) {
      throw new KeymapError(`${source}: keys of '${id}' must be a key name or a list of key names`);
    }
    for (const k of list as string[]) {
      if (!isValidKey(k)) throw new KeymapError(`${source}: '${k}' (for ${id}) is not a key name`);
    }
  }
  const bindings: Binding[] = ACTIONS.map((a) => {
    const o = given[a.id];
    const keys = o === undefined ? [...a.keys] : [...new Set(typeof o === 'string' ? [o] : (o as string[]))];
    return { id: a.id, group: a.group, keys, description: a.description };
  });
  const byKey = new Map<string, ActionId>();
  for (const b of bindings) {
    for (const k of b.keys) {
      const other = byKey.get(k);
      if (other !== undefined) {
        throw new KeymapError(`${source}: key '${k}' is bound to both ${other} and ${b.id}`);
      }
      byKey.set(k, b.id);
    }
  }
  const quit = bindings.find((b) => b.id === 'quit')!;
  if (quit.keys.length === 0) throw new KeymapError(`${source}: quit must keep at least one key`);
  const keysOf = (id: ActionId) => bindings.find((b) => b.id === id)?.keys ?? [];
  const tables = new Map<Context, ContextTable>();
  for (const ctx of Object.keys(CONTEXTS) as Context[]) tables.set(ctx, contextTable(CONTEXTS[ctx], keysOf));
  return {
    bindings,
    byKey,
    keysOf,
    resolve(context, key, ch) {
      const t = tables.get(context)!;
      const typed = ch !== undefined && ch !== '';
      const r = t.byKey.get(key);
      if (r && !(r.notText && typed)) return r.id;
      return typed && t.text !== null ? t.text : null;
    },
  };
}

interface ContextTable {
  byKey: Map<string, { id: KeyAction; notText: boolean }>;
  /** The id printable characters resolve to (a text box), else null. */
  text: KeyAction | null;
}

/** A context's rules with the user's keys filled in, first rule first. */
function contextTable(rules: readonly Rule[], keysOf: (id: ActionId) => string[]): ContextTable {
  const byKey = new Map<string, { id: KeyAction; notText: boolean }>();
  let text: KeyAction | null = null;
  for (const r of rules) {
    const id = r.id as KeyAction;
    if (r.text) text ??= id;
    for (const k of r.keys ?? []) if (!byKey.has(k)) byKey.set(k, { id, notText: false });
    for (const a of r.via ?? [])
      for (const k of keysOf(a)) if (!byKey.has(k)) byKey.set(k, { id, notText: r.notText === true });
  }
  return { byKey, text };
}

/** Parses keys.json text; a syntax error is one line too. */
export function parseKeysJson(text: string, source = 'keys.json'): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new KeymapError(`${source}: not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
}
