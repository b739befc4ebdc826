/**
 * Thrown when the kit is configured in a way that cannot work (no secret, a secret that is not
 * `whsec_` + base64, an option out of range, an invalid schema name). A deployment error, thrown
 * at startup rather than answered per request. Messages name the option, never a secret's value.
 */
export class ReceiverConfigError extends Error {
  override readonly name = 'ReceiverConfigError';
}

/**
 * Thrown (and every record refused, so nothing is acknowledged) when the store cannot keep what
 * it would acknowledge: a Redis server without an append-only file, or with an eviction policy
 * that may delete recorded events (README, "Redis"). The message says what to change.
 */
export class ReceiverStoreNotDurableError extends Error {
  override readonly name = 'ReceiverStoreNotDurableError';
}
