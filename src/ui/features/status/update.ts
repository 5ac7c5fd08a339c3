/** The status bar's state: the audit chain check's progress and result. */
import type { ChainCheck } from '../../../store/index.js';
import type { Result } from '../../core/selectors.js';
import type { State, StateResult } from '../../core/state.js';

export function onChainStart(s: State, full: boolean, total: number): Result {
  return [{ ...s, chain: { ...s.chain, status: 'checking', full, progress: { done: 0, total } } }, []];
}

export function onChainProgress(s: State, done: number): Result {
  if (!s.chain.progress) return [s, []];
  return [{ ...s, chain: { ...s.chain, progress: { ...s.chain.progress, done } } }, []];
}

export function onChainDone(s: State, r: ChainCheck, full: boolean): Result {
  const chain: State['chain'] = {
    status: r.ok ? 'ok' : 'broken',
    full,
    events: r.events,
    head: r.ok ? r.head : r.verified.seq > 0 ? `${r.verified.seq}:${r.verified.hash}` : null,
    checkedAt: s.now,
    brokenAt: r.first_broken_seq,
    reason: r.reason,
    progress: null,
    state: s.chain.state,
  };
  return [{ ...s, chain }, []];
}

export function onStateDone(s: State, result: StateResult): Result {
  return [{ ...s, chain: { ...s.chain, state: result } }, []];
}
