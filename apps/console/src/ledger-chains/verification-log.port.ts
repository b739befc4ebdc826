import type { VerificationRecord } from './ledger-verification.js';

/**
 * Where the console keeps its ledger verifications (docs/console.md, "Ledger verification"),
 * and the lock that lets one console instance verify at a time. Adapters:
 * `PostgresVerificationLog` (`console.ledger_verifications`, an advisory lock) and
 * `MemoryVerificationLog` (unit tests).
 */
export interface VerificationLog {
  /**
   * Runs `work` holding the verification lock, or skips it when another instance holds the lock.
   *
   * @returns `{ ran: false }` when skipped.
   * @throws what `work` throws (the lock is released first).
   */
  exclusively<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /** The latest record, `null` before the first verification. */
  latest(): Promise<VerificationRecord | null>;
  /** Keeps a new record: it becomes the latest. */
  append(record: VerificationRecord): Promise<void>;
  /** Moves the latest record's `checkedAt` and `lastFullAt` (a run that found nothing new confirmed it). */
  confirmLatest(confirmation: Pick<VerificationRecord, 'checkedAt' | 'lastFullAt'>): Promise<void>;
}
