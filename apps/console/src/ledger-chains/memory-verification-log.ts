import type { VerificationRecord } from './ledger-verification.js';
import type { VerificationLog } from './verification-log.port.js';

/** In-memory {@link VerificationLog} for unit tests: records in a list, a flag as the lock. */
export class MemoryVerificationLog implements VerificationLog {
  /** Every record kept, oldest first. */
  readonly records: VerificationRecord[] = [];
  private locked = false;

  async exclusively<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.locked) return { ran: false };
    this.locked = true;
    try {
      return { ran: true, value: await work() };
    } finally {
      this.locked = false;
    }
  }

  async latest(): Promise<VerificationRecord | null> {
    const last = this.records.at(-1);
    return last ? structuredClone(last) : null;
  }

  async append(record: VerificationRecord): Promise<void> {
    this.records.push(structuredClone(record));
  }

  async confirmLatest(confirmation: Pick<VerificationRecord, 'checkedAt' | 'lastFullAt'>): Promise<void> {
    const last = this.records.at(-1);
    if (!last) return;
    last.checkedAt = new Date(confirmation.checkedAt);
    last.lastFullAt = confirmation.lastFullAt && new Date(confirmation.lastFullAt);
  }
}
