/**
 * The fast paths read a page of rows from SQLite as a handful of values (verify-nodes.ts, audit/check.ts,
 * audit/claims-read.ts), numbers among them as comma-separated lists (group_concat): read here in place.
 */

/**
 * A comma-separated list of exactly n integers as SQLite prints them (an optional minus, digits), written into
 * out[base, base + n); false for anything else, or an integer of more than 15 digits (which a double may not hold
 * exactly): the page then takes the exact path. Splitting a page's lists into strings and back was a tenth of
 * verify's JavaScript, most of it in the garbage collector.
 */
export function integerList(s: string, out: Float64Array, base: number, n: number): boolean {
  let k = 0;
  let at = 0;
  while (k < n) {
    const negative = s.charCodeAt(at) === 45;
    if (negative) at++;
    const from = at;
    let v = 0;
    for (let c = s.charCodeAt(at); c >= 48 && c <= 57; c = s.charCodeAt(++at)) v = v * 10 + (c - 48);
    if (at === from || at - from > 15) return false;
    out[base + k++] = negative ? -v : v;
    if (k < n && s.charCodeAt(at++) !== 44) return false;
  }
  return at === s.length;
}
