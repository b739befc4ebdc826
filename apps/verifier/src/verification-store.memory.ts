import type { OutboxMessage } from '@settle/messaging';
import {
  ConcurrentUpdateError,
  type StoredTransaction,
  type UnmatchedCandidate,
  type VerificationCommit,
  type VerificationStore,
} from './verification-store.port.js';

/**
 * The verifier's store in memory, for tests: the same all-or-nothing commit and the same
 * conflicts as the PostgreSQL store, with its outbox kept as a list to read.
 */
export class InMemoryVerificationStore implements VerificationStore {
  /** Every outbox message committed, in commit order. */
  readonly outbox: OutboxMessage[] = [];
  private readonly inbox = new Set<string>();
  private readonly transactions = new Map<string, StoredTransaction>();
  private readonly candidates = new Map<string, UnmatchedCandidate>();

  processedAmong(eventIds: readonly string[]): Promise<Set<string>> {
    return Promise.resolve(new Set(eventIds.filter((id) => this.inbox.has(id))));
  }

  loadMany(references: readonly string[]): Promise<Map<string, StoredTransaction>> {
    const found = references.flatMap((reference) => {
      const stored = this.transactions.get(reference);
      return stored ? [[reference, structuredClone(stored)] as const] : [];
    });
    return Promise.resolve(new Map(found));
  }

  loadCandidates(references: readonly string[]): Promise<Map<string, UnmatchedCandidate>> {
    const found = references.flatMap((reference) => {
      const stored = this.candidates.get(reference);
      return stored ? [[reference, structuredClone(stored)] as const] : [];
    });
    return Promise.resolve(new Map(found));
  }

  /** The stored transaction of a reference (a copy), or `undefined`. */
  get(reference: string): StoredTransaction | undefined {
    const stored = this.transactions.get(reference);
    return stored && structuredClone(stored);
  }

  /** @throws ConcurrentUpdateError as the port says (checked before anything is stored). */
  commit({ handled, inserts, saves, messages, candidates = [] }: VerificationCommit): Promise<void> {
    if (new Set(handled).size !== handled.length || handled.some((id) => this.inbox.has(id))) {
      return Promise.reject(new ConcurrentUpdateError('(inbox)'));
    }
    if (inserts.some(({ state }) => this.transactions.has(state.expectation.reference))) return Promise.reject(new ConcurrentUpdateError('(registration)'));
    if (saves.some(({ state, previousOutcomes }) => this.transactions.get(state.expectation.reference)?.state.outcomes !== previousOutcomes)) {
      return Promise.reject(new ConcurrentUpdateError('(state)'));
    }
    for (const id of handled) this.inbox.add(id);
    for (const { state, correlationId } of inserts) this.transactions.set(state.expectation.reference, structuredClone({ state, correlationId }));
    for (const { state } of saves) {
      const stored = this.transactions.get(state.expectation.reference)!;
      // What the PostgreSQL store's UPDATE writes: status, entitlement, completion and outcome count.
      stored.state = { ...stored.state, status: state.status, entitlement: state.entitlement, completedAt: state.completedAt, outcomes: state.outcomes };
    }
    for (const candidate of candidates) this.candidates.set(candidate.reference, structuredClone(candidate));
    this.outbox.push(...structuredClone(messages));
    return Promise.resolve();
  }
}
