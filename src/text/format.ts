/** Small pure formatters for people: counts, ages, times (the TUI's panes and the CLI's tables alike). */

/** 12345 -> "12,345" */
export function thousands(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A count and its noun, singular for one: "1 event", "1,013,848 events". */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${thousands(n)} ${n === 1 ? one : many}`;
}

/** A compact age: "now", "42s", "5m", "3h", "2d", "7w", "4mo", "2y". */
export function age(fromMs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - fromMs) / 1000));
  if (s < 5) return 'now';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 14) return `${d}d`;
  if (d < 60) return `${Math.floor(d / 7)}w`;
  if (d < 730) return `${Math.floor(d / 30)}mo`;
  return `${Math.floor(d / 365)}y`;
}

/**
 * A stored time for people, in the CLI and the TUI alike: this machine's local time with its zone written out
 * ("2026-11-29 14:02 UTC", "2026-11-29 15:02 +01:00"), so one turn reads the same everywhere and nobody has to
 * guess the zone (JSON keeps the stored ISO string). A stored value that is not a time (a shard from elsewhere may
 * hold anything) is shown as given, cut short; the caller sanitises it.
 */
export function shortTime(iso: string): string {
  const t = typeof iso === 'string' && /^\d{4}-\d\d-\d\dT/.test(iso) ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return String(iso).slice(0, 32);
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())} ${zoneLabel(d)}`;
}

/** "UTC" at offset zero, else "+01:00" / "-05:30". */
export function zoneLabel(d: Date): string {
  const off = -d.getTimezoneOffset();
  if (off === 0) return 'UTC';
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

export function parseTime(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

/** 1536 -> "1.5 KiB". */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const s = i === 0 ? String(v) : v.toFixed(1).replace(/\.0$/, '');
  return `${n < 0 ? '-' : ''}${s} ${units[i]}`;
}
