import type { Outbox } from '@settle/messaging';
import { inTransaction, type Pool } from '@settle/platform';
import type { TransactionRepository } from './transaction.repository.js';
import { UnmatchedCandidateRepository } from './unmatched-candidate.repository.js';
import {
  ConcurrentUpdateError,
  type StoredTransaction,
  type UnmatchedCandidate,
  type VerificationCommit,
  type VerificationStore,
} from './verification-store.port.js';

/**
 * The verifier's store in PostgreSQL (schema `verifier`): `inbox`, `transactions` (through
 * {@link TransactionRepository}), `unmatched_payments` (through {@link UnmatchedCandidateRepository})
 * and `outbox`, one commit being one PostgreSQL transaction with
 * a fixed number of statements whatever its size.
 */
export class PostgresVerificationStore implements VerificationStore {
  private readonly candidates: UnmatchedCandidateRepository;

  constructor(
    private readonly pool: Pool,
    private readonly transactions: TransactionRepository,
    private readonly outbox: Outbox,
  ) {
    this.candidates = new UnmatchedCandidateRepository(pool);
  }

  processedAmong(eventIds: readonly string[]): Promise<Set<string>> {
    return this.transactions.processedAmong(eventIds);
  }

  loadMany(references: readonly string[]): Promise<Map<string, StoredTransaction>> {
    return this.transactions.loadMany(references);
  }

  loadCandidates(references: readonly string[]): Promise<Map<string, UnmatchedCandidate>> {
    return this.candidates.loadMany(references);
  }

  /** @throws ConcurrentUpdateError as the port says; database errors. */
  async commit({ handled, inserts, saves, messages, candidates = [] }: VerificationCommit): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      if ((await this.transactions.markProcessedMany(client, handled)) !== handled.length) throw new ConcurrentUpdateError('(inbox)');
      if ((await this.transactions.insertMany(client, inserts)) !== inserts.length) throw new ConcurrentUpdateError('(registration)');
      if ((await this.transactions.saveMany(client, saves)) !== saves.length) throw new ConcurrentUpdateError('(state)');
      await this.candidates.saveMany(client, candidates);
      await this.outbox.enqueue(client, messages);
    });
  }
}
