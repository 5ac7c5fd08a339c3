/** Times as the readers store them. */

/** ISO 8601 from epoch ms or a date string; null when neither. */
export function isoOf(v: unknown): string | null {
  if ((typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v !== '')) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  return null;
}
