import { ReadModelNotReadyError, readReadModel, type VerifiableLedger } from '@settle/ledger';
import type { Logger } from '@settle/platform';
import {
  BROKEN_RECHECK_MS,
  isSignedCheckpointBreak,
  onlyConfirms,
  planVerification,
  runVerification,
  type CheckpointSources,
  type VerificationBreak,
  type VerificationRecord,
} from './ledger-verification.js';
import type { VerificationLog } from './verification-log.port.js';

/** What one {@link LedgerChainAuditor.runOnce} did. */
export type AuditRun =
  /** Another console instance holds the lock. */
  | { outcome: 'locked' }
  /** Broken, and re-checked less than {@link BROKEN_RECHECK_MS} ago. */
  | { outcome: 'waited' }
  /** The ledger's tables do not exist yet (the projector creates them at its first boot). */
  | { outcome: 'not_ready' }
  | { outcome: 'verified'; record: VerificationRecord };

/**
 * The console's own check of the ledger's hash chains (docs/console.md, "Ledger
 * verification"): every `intervalMs` it verifies what was appended since its last verified
 * position (`verifyLedger` from that checkpoint), a full verification from the first event
 * every `fullEveryMs` and while a break is reported, and keeps each outcome in its
 * {@link VerificationLog}. Each run also checks the ledger against the signed checkpoints of the
 * checkpoint sink (`runVerification`); when it cannot (no sink, the sink unreadable), the chains
 * are still verified and a warning is logged once each time the reason changes. Runs never
 * overlap (the next is scheduled when one ends) and one console instance runs at a time (the
 * log's lock).
 */
export class LedgerChainAuditor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  /** Why the last run did not check the signed checkpoints (`null`: it did; `undefined`: no run yet). */
  private notChecked: string | null | undefined = undefined;

  /**
   * @param options.fullEveryMs - a full verification at least this often, milliseconds.
   * @param options.brokenRecheckMs - while broken, a full re-verification at most this often; default {@link BROKEN_RECHECK_MS}.
   * @param options.now - clock, epoch milliseconds.
   * @param options.checkpoints - the checkpoint sink's reader and the events' reader; without a
   *   reader the checkpoints are not checked (no sink configured).
   */
  constructor(
    private readonly ledger: VerifiableLedger,
    private readonly log: VerificationLog,
    private readonly logger: Logger,
    private readonly options: { fullEveryMs: number; brokenRecheckMs?: number; now?: () => number; checkpoints?: CheckpointSources },
  ) {}

  /**
   * One verification, planned from the latest record, under the log's lock.
   *
   * @throws what the ledger's and the log's reads and writes throw, but the ledger not existing yet.
   */
  async runOnce(): Promise<AuditRun> {
    const now = this.options.now ?? Date.now;
    const exclusive = await this.log.exclusively(async (): Promise<AuditRun> => {
      const latest = await this.log.latest();
      const plan = planVerification(latest, now(), {
        fullEveryMs: this.options.fullEveryMs,
        brokenRecheckMs: this.options.brokenRecheckMs ?? BROKEN_RECHECK_MS,
      });
      if (plan.kind === 'wait') return { outcome: 'waited' };
      let record: VerificationRecord;
      try {
        record = await readReadModel(() => runVerification(this.ledger, plan, latest, now, this.options.checkpoints));
      } catch (error) {
        if (error instanceof ReadModelNotReadyError) return { outcome: 'not_ready' };
        throw error;
      }
      if (onlyConfirms(latest, record)) {
        await this.log.confirmLatest(record);
      } else {
        await this.log.append(record);
        this.report(latest?.broken ?? null, record);
      }
      this.reportCheckpoints(record);
      return { outcome: 'verified', record };
    });
    return exclusive.ran ? exclusive.value : { outcome: 'locked' };
  }

  /** Runs now, then `intervalMs` milliseconds after each run ends, until {@link LedgerChainAuditor.stop}. A failed run is logged and retried at the next. */
  start(intervalMs: number): void {
    const tick = () => {
      this.running = this.runOnce()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'the ledger could not be verified; retrying at the next interval'))
        .finally(() => {
          this.running = null;
          if (!this.stopped) {
            this.timer = setTimeout(tick, intervalMs);
            this.timer.unref();
          }
        });
    };
    tick();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** A warning when the signed checkpoints stop being checked or for another reason than before; a line when they are checked again. */
  private reportCheckpoints(record: VerificationRecord): void {
    const why = record.checkpoints.notChecked;
    if (why === this.notChecked) return;
    if (why !== null) {
      this.logger.warn({ why }, 'the ledger was not checked against its signed checkpoints; the hash chains were verified');
    } else if (this.notChecked !== undefined) {
      this.logger.info(
        { checkpoints: record.checkpoints.checked, keysFrom: record.checkpoints.keysFrom },
        'the ledger is checked against its signed checkpoints again',
      );
    }
    this.notChecked = why;
  }

  private report(before: VerificationBreak | null, record: VerificationRecord): void {
    const c = record.checkpoints;
    const where = {
      kind: record.kind,
      from: record.fromPosition,
      position: record.verifiedPosition,
      checked: record.eventsChecked,
      checkpoints: c.notChecked === null ? { checked: c.checked, latestSize: c.latest?.size ?? null } : { notChecked: c.notChecked },
    };
    if (record.broken) {
      const b = record.broken;
      this.logger.error(
        { ...where, broken: { position: b.position, streamId: b.streamId, revision: b.revision, reason: b.reason } },
        isSignedCheckpointBreak(b.reason, b.streamId) ? 'the ledger disagrees with a signed checkpoint' : 'ledger hash chains broken',
      );
    } else if (before) {
      this.logger.info(where, 'ledger hash chains verified again in full: the break is no longer reported');
    } else {
      this.logger.info(where, 'ledger hash chains verified');
    }
  }
}
