/**
 * Errors the store raises on purpose. Each carries a one-line message meant for a person and a kind that the CLI
 * maps to an exit code (everything here is exit 2: bad input, unknown id, unusable shard).
 */
export type ErrorKind = 'usage' | 'input' | 'not_found' | 'shard' | 'busy';

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

export function badInput(what: string): ArboristError {
  return new ArboristError('input', what);
}
