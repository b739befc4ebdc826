import type { AccessGrant } from './store.port.js';

/** The access stored for a user and entitlement: its expiry (ms since the epoch) and the revision that set it (`null`: set by an event without one). */
export interface StoredAccess {
  readonly expiresAt: number;
  readonly revision: number | null;
}

/**
 * Whether an event's access replaces the stored one (receiver rule 4, README "Access expiry";
 * Settle's docs/delivery.md, "Access follows the money"). Every event Settle sends carries its
 * entitlement stream's `revision`, in stream order; events from before revisions existed carry
 * none, and all of them precede, in their stream, every event that carries one. So:
 * - nothing stored: the event's access is stored;
 * - an event with a revision replaces access stored without one (set by older events only) and
 *   access stored by a lower revision: the expiry of the highest revision applied wins, so a
 *   revocation can shorten access and a stale renewal cannot undo it;
 * - an event without a revision replaces only access stored without one, and only with a later
 *   expiry (the rule before revisions; for streams that only grant, the highest revision always
 *   has the latest expiry, so both rules give the same access).
 *
 * The three stores apply this same rule in one atomic write (a PostgreSQL statement, a Redis
 * script, a synchronous step in memory); the contract tests hold them to it. Order-independent:
 * any permutation and duplication of a stream's events ends at the same access.
 */
export function supersedes(stored: StoredAccess | null, grant: Pick<AccessGrant, 'expiresAt' | 'revision'>): boolean {
  if (stored === null) return true;
  if (grant.revision === null) return stored.revision === null && stored.expiresAt < grant.expiresAt;
  return stored.revision === null || stored.revision < grant.revision;
}
