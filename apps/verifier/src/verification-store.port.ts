import { SettleError, type ProviderName, type RegisteredTransaction, type UnmatchedPayment } from '@settle/domain';
import type { OutboxMessage } from '@settle/messaging';

/** A transaction's decider state plus what the verifier needs around it. */
export interface StoredTransaction {
  state: RegisteredTransaction;
  correlationId: string;
}

/**
 * A payment Settle was never told about, as the verifier keeps it (docs/unmatched-payments.md):
 * - `candidate`: a correctly signed webhook for a reference with no checkout, waiting for its
 *   grace period;
 * - `recorded`: the provider confirmed a cleared payment (`payment`): an unmatched payment;
 * - `declined`: the provider said nothing was paid;
 * - `not_found`: the provider does not know the reference (after the grace period);
 * - `matched`: a checkout was registered under its reference since;
 * - `closed`: an operator closed it with a reason.
 */
export interface UnmatchedCandidate {
  reference: string;
  provider: ProviderName;
  correlationId: string;
  status: 'candidate' | 'recorded' | 'declined' | 'not_found' | 'matched' | 'closed';
  /** When its first signed webhook arrived, epoch ms. */
  firstSeenAt: number;
  /** What the provider confirmed, once recorded (kept when matched). */
  payment: UnmatchedPayment | null;
  /** When a checkout was registered under its reference, epoch ms. */
  matchedAt: number | null;
}

/**
 * What one commit of the verifier writes, all or nothing: the message ids handled (the inbox),
 * the transactions registered, the states changed and the consensus results to publish.
 */
export interface VerificationCommit {
  /** Message ids handled, none of which may have been recorded before. */
  readonly handled: readonly string[];
  /** Newly registered transactions (their state carries the expectation). */
  readonly inserts: ReadonlyArray<{ state: RegisteredTransaction; correlationId: string }>;
  /** Changed states, each saved only if its stored outcome count is still `previousOutcomes`. */
  readonly saves: ReadonlyArray<{ state: RegisteredTransaction; previousOutcomes: number }>;
  /** Outbox messages (consensus results), published if and only if the commit succeeds. */
  readonly messages: readonly OutboxMessage[];
  /** Unmatched payment candidates created or changed (written whole; absent: none). */
  readonly candidates?: readonly UnmatchedCandidate[];
}

/**
 * Another writer changed one of the commit's transactions or inbox ids first; nothing of the
 * commit was stored. Kind `unavailable`: the consumer loop retries the batch, which the inbox
 * makes harmless (code `VERIFICATION.CONCURRENT_UPDATE`).
 */
export class ConcurrentUpdateError extends SettleError {
  readonly code = 'VERIFICATION.CONCURRENT_UPDATE';
  readonly kind = 'unavailable' as const;

  /** @param what - which part lost the race: `(inbox)`, `(registration)` or `(state)`. */
  constructor(what: string) {
    super(`Transaction ${what} changed concurrently`);
    this.name = 'ConcurrentUpdateError';
  }
}

/**
 * What the verifier persists (docs/architecture.md, "Exactly-once effect"): its inbox of
 * processed message ids, the folded state of each transaction, and its outbox. A PostgreSQL
 * adapter (`PostgresVerificationStore`, one transaction per commit) and an in-memory one
 * (`InMemoryVerificationStore`, for tests) pass the same contract
 * (apps/verifier/test/verification-store.contract.ts).
 */
export interface VerificationStore {
  /** Which of these message ids were processed already. */
  processedAmong(eventIds: readonly string[]): Promise<Set<string>>;
  /** Reference to stored transaction, for the references registered (absent: never registered). */
  loadMany(references: readonly string[]): Promise<Map<string, StoredTransaction>>;
  /** Reference to unmatched payment candidate, for the references that have one. */
  loadCandidates(references: readonly string[]): Promise<Map<string, UnmatchedCandidate>>;
  /**
   * Writes one {@link VerificationCommit} atomically.
   *
   * @throws ConcurrentUpdateError when an id was processed, a reference registered or a state
   *   saved by another writer meanwhile (nothing stored); storage errors (transient).
   */
  commit(batch: VerificationCommit): Promise<void>;
}
