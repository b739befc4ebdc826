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

  async confirmLatest(checkedAt: Date): Promise<void> {
    const last = this.records.at(-1);
    if (last) last.checkedAt = new Date(checkedAt);
  }
}
