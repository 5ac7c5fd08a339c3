/**
 * Errors the store raises on purpose. Each carries a one-line message meant for a person and a kind that the CLI
 * maps to an exit code (everything here is exit 2: bad input, unknown id, unusable shard; `damaged`, a shard
 * whose own structure is broken, is exit 1 from the checks, which exist to find it).
 */
export type ErrorKind = 'usage' | 'input' | 'not_found' | 'shard' | 'busy' | 'damaged';

export class ArboristError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string) {
    super(message);
    this.kind = kind;
    this.name = 'ArboristError';
  }
}

export function notFound(what: string): ArboristError {
  return new ArboristError('not_found', what);
}

export function damaged(what: string): ArboristError {
  return new ArboristError('damaged', what);
}

export function badInput(what: string): ArboristError {
  return new ArboristError('input', what);
}
