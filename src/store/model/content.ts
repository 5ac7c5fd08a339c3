/**
 * A turn's hashed content, declared once: the fields node_hash covers (docs/sessions.md, "node_hash"). Everything
 * that holds, checks, exports or re-imports a turn's content takes its type from here, so a field added to the
 * hash is added in one place and the compiler names every place that must carry it.
 */
export interface TurnContent {
  bates: string;
  /** Structure is content: moving a turn changes its hash. */
  parent_bates: string | null;
  question: string;
  answer_text: string;
  cited_titles: string[];
  n_cited_sources: number;
  audit: string;
  cache_key: string | null;
  created_at: string;
  source: string | null;
  source_id: string | null;
}

/** The fields of TurnContent in canonical (RFC 8785: sorted) order. */
export const TURN_CONTENT_FIELDS = [
  'answer_text',
  'audit',
  'bates',
  'cache_key',
  'cited_titles',
  'created_at',
  'n_cited_sources',
  'parent_bates',
  'question',
  'source',
  'source_id',
] as const satisfies readonly (keyof TurnContent)[];

// The list holds every field of TurnContent: this line stops compiling when one is added to the type only.
type Missing = Exclude<keyof TurnContent, (typeof TURN_CONTENT_FIELDS)[number]>;
const everyField: [Missing] extends [never] ? true : Missing = true;
void everyField;

/** A turn's content without its place: what a new turn brings (the store mints its Bates id and knows its parent). */
export type TurnBody = Omit<TurnContent, 'bates' | 'parent_bates'>;

/** A turn as it travels between shards (export, the arborist import, sync): content, place and hashes. */
export interface TurnRecord extends TurnContent {
  sid: string;
  seq: number;
  node_hash: string;
  subtree_hash: string;
}

/** Exactly the hashed fields of `t`, in canonical order (the input may carry more). */
export function turnContentOf(t: TurnContent): TurnContent {
  const out: Record<string, unknown> = {};
  for (const f of TURN_CONTENT_FIELDS) out[f] = t[f];
  return out as unknown as TurnContent;
}
