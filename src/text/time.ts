/**
 * One way to show a stored time to a person, in the CLI and the TUI alike: the local time of this machine with
 * its offset written out ("2026-11-29 14:02 UTC", "2026-11-29 15:02 +01:00"), so the same turn reads the same in
 * both and nobody has to guess the zone. JSON output keeps the stored ISO string. A stored value that is not a
 * time (a shard from elsewhere may hold anything) is shown as text, cut short; the caller sanitises it.
 */
export function formatTime(iso: string, opts: { seconds?: boolean } = {}): string {
  const t = typeof iso === 'string' && /^\d{4}-\d\d-\d\dT/.test(iso) ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return String(iso).slice(0, 32);
  const d = new Date(t);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const date = `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())}`;
  const time = `${p2(d.getHours())}:${p2(d.getMinutes())}${opts.seconds ? `:${p2(d.getSeconds())}` : ''}`;
  return `${date} ${time} ${zoneLabel(d)}`;
}

/** "UTC" at offset zero, else "+01:00" / "-05:30". */
export function zoneLabel(d: Date): string {
  const off = -d.getTimezoneOffset();
  if (off === 0) return 'UTC';
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}
