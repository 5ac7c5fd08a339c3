import { ArboristError, type ErrorKind } from '../store/index.js';

/**
 * Why asking failed. Every AskError is one line meant for a person, and no turn was added.
 *   config     config.json or --answer-cmd is unusable (kind 'usage')
 *   missing    the answer command does not exist or cannot be run (kind 'not_found')
 *   failed     it exited with a non-zero status or was killed by a signal (kind 'input')
 *   timeout    it did not finish in time (kind 'input')
 *   too_large  it printed more than the cap (kind 'input')
 *   empty      it printed nothing (kind 'input')
 *   cancelled  the caller aborted (kind 'input')
 */
export type AskErrorCode = 'config' | 'missing' | 'failed' | 'timeout' | 'too_large' | 'empty' | 'cancelled';

const KIND: Record<AskErrorCode, ErrorKind> = {
  config: 'usage',
  missing: 'not_found',
  failed: 'input',
  timeout: 'input',
  too_large: 'input',
  empty: 'input',
  cancelled: 'input',
};

export class AskError extends ArboristError {
  readonly code: AskErrorCode;
  constructor(code: AskErrorCode, message: string) {
    super(KIND[code], message.replace(/[\r\n]+/g, ' '));
    this.code = code;
    this.name = 'AskError';
  }
}

export function cancelled(): AskError {
  return new AskError('cancelled', 'asking was cancelled; no turn was added');
}
