import { randomBytes } from 'node:crypto';

/** Session ids and Bates ids (docs/sessions.md, "Tables"): `<sid>-<seq, 6+ digits>`. */

const BATES_RE = /^([a-z0-9]+)-(\d{6,})$/;
export const SID_RE = /^[a-z0-9]{1,32}$/;

export function formatBates(sid: string, seq: number): string {
  return `${sid}-${String(seq).padStart(6, '0')}`;
}

export function parseBates(x: string): { sid: string; seq: number } | null {
  const m = BATES_RE.exec(x);
  return m ? { sid: m[1], seq: Number(m[2]) } : null;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Eight random lowercase letters or digits: a candidate sid, a checkpoint id. */
export function randomId(): string {
  let s = '';
  for (const b of randomBytes(8)) s += ALPHABET[b % 36];
  return s;
}
