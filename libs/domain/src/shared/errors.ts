/**
 * A rule of the domain was broken. Carries a stable, dotted code (for example
 * `TRANSACTION.UNKNOWN`) that adapters map to HTTP statuses, retries or dead-letter
 * records at the edge; the domain itself never knows about transports.
 */
export class DomainError extends Error {
  /**
   * @param code - stable machine-readable code, `AREA.REASON`.
   * @param message - human-readable explanation; must never contain secrets.
   */
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** Exhaustiveness guard for `switch` statements over tagged unions. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
