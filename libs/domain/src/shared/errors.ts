/**
 * How an edge treats an error, whatever its class: the HTTP filter maps a kind to a status,
 * the consumer loop to a retry or a dead-letter record (docs/architecture.md, "Errors").
 * Application code never chooses a status or a retry itself.
 *
 * - `invalid`: the input breaks a rule and never will be valid (HTTP 400; dead-letter);
 * - `unauthenticated`: no valid credentials (HTTP 401);
 * - `forbidden`: authenticated, not allowed (HTTP 403);
 * - `not_found`: the thing named does not exist (HTTP 404; dead-letter);
 * - `conflict`: contradicts what is stored (HTTP 409; dead-letter);
 * - `too_large`: the input is over a size limit (HTTP 413; dead-letter);
 * - `unavailable`: a dependency is down or slow, retrying may succeed (HTTP 503; retried in place);
 * - `internal`: a bug or a broken invariant of Settle itself (HTTP 500; retried, loudly).
 */
export type ErrorKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'unavailable' | 'internal';

/** Kinds that no retry can fix: a consumer dead-letters them, an HTTP client must change its request. */
export const PERMANENT_ERROR_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['invalid', 'not_found', 'conflict', 'too_large']);

/**
 * The base of every error Settle throws on purpose. Carries a stable, dotted `code`
 * (`AREA.REASON`, for example `TRANSACTION.UNKNOWN` or `PROVIDER.UNREACHABLE`) that logs,
 * problem details and dead-letter headers repeat, and a {@link ErrorKind} that the edges
 * (HTTP filter, consumer loop) map to a status, a retry or a dead-letter record.
 * Messages must never contain secrets.
 */
export abstract class SettleError extends Error {
  /** Stable machine-readable code, `AREA.REASON`. */
  abstract readonly code: string;
  /** How the edges treat it. */
  abstract readonly kind: ErrorKind;
}

/** Whether `error` is one of Settle's errors. */
export function isSettleError(error: unknown): error is SettleError {
  return error instanceof SettleError;
}

/** Whether no retry can fix `error`: a {@link SettleError} of a permanent {@link ErrorKind}. */
export function isPermanentError(error: unknown): boolean {
  return isSettleError(error) && PERMANENT_ERROR_KINDS.has(error.kind);
}

/**
 * A rule of the domain was broken. The domain itself never knows about transports; its
 * `kind` says how the edge treats it (`invalid` unless the rule says otherwise).
 */
export class DomainError extends SettleError {
  /**
   * @param code - stable machine-readable code, `AREA.REASON`.
   * @param message - human-readable explanation; must never contain secrets.
   * @param kind - how the edges treat it; `invalid` by default.
   */
  constructor(
    readonly code: string,
    message: string,
    readonly kind: ErrorKind = 'invalid',
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** Exhaustiveness guard for `switch` statements over tagged unions. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
