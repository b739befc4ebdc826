import { readReadModel } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { isSignedCheckpointBreak, type CheckpointState, type VerificationBreak, type VerificationRecord } from '../ledger-chains/ledger-verification.js';
import type { VerificationLog } from '../ledger-chains/verification-log.port.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { Overview } from '../transactions/views.js';
import type { ConsumerLag, DeadLetteredMessages, KafkaOverview } from './kafka-overview.js';

/**
 * Where the ledger stands against the signed checkpoints of the checkpoint sink (docs/console.md,
 * "Ledger verification"): checked against `checked` of them, the latest covering positions 1 to
 * `latestSize`, signed at `latestSignedAt`; or not checked by the last verification, and why.
 */
export type SignedCheckpointStatus =
  | {
      status: 'checked';
      /** Signed checkpoints the verified events agree with. */
      checked: number;
      /** The largest of them, `null` when none. */
      latestSize: number | null;
      /** When it was signed, ISO 8601. */
      latestSignedAt: string | null;
      /** Whose keys were trusted: `LEDGER_CHECKPOINT_KEYS`, or the sink's `keys/` folder. */
      keysFrom: string | null;
    }
  | { status: 'not_checked'; reason: string };

/** The status an overview shows for a record's check against the signed checkpoints. */
export function signedCheckpointStatus(state: CheckpointState): SignedCheckpointStatus {
  if (state.notChecked !== null) return { status: 'not_checked', reason: state.notChecked };
  return {
    status: 'checked',
    checked: state.checked,
    latestSize: state.latest?.size ?? null,
    latestSignedAt: state.latest?.at.toISOString() ?? null,
    keysFrom: state.keysFrom,
  };
}

/**
 * The hash-chain verification status of the ledger, as the console's own verification last
 * found it (docs/console.md, "Ledger verification"):
 * - `verified`: every event up to `position` holds, checked last at `verifiedAt`, with where the
 *   ledger stands against the signed checkpoints;
 * - `broken`: the first break found, in the chains or against a signed checkpoint (it stays until
 *   a full verification passes);
 * - `pending`: not verified yet (the console just started, or the ledger does not exist yet);
 * - `not_applicable`: the ledger is in KurrentDB (`LEDGER_STORE=kurrentdb`), which the console does not verify.
 */
export type LedgerChainStatus =
  | {
      status: 'verified';
      /** The last event verified. */
      position: number;
      /** The global hash after it. */
      globalHash: string;
      /** When a verification last confirmed it, ISO 8601. */
      verifiedAt: string;
      /** Events the last verification that checked any checked. */
      eventsChecked: number;
      /** When the latest full verification (from the first event) passed, ISO 8601. */
      lastFullVerificationAt: string | null;
      /** The check against the signed checkpoints. */
      checkpoints: SignedCheckpointStatus;
    }
  | {
      status: 'broken';
      /** Where the chains first do not hold. */
      position: number;
      reason: VerificationBreak['reason'];
      /** The stream of the event at fault; `null` for a break of the head or a checkpoint. */
      streamId: string | null;
      revision: number | null;
      /** When a verification last found the break, ISO 8601. */
      checkedAt: string;
      /** The last event that held before the break. */
      lastVerifiedPosition: number;
      /** Whether the break was found against a signed checkpoint (`position` is then its size) rather than in the chains. */
      againstSignedCheckpoint: boolean;
    }
  | { status: 'pending' }
  | { status: 'not_applicable'; detail: string };

/** Answer of `GET /api/v1/overview` (docs/console.md, "API"). */
export interface ConsoleOverview extends Overview {
  /** `dispatcher.deliveries` in state `failed`: given up for an endpoint after every retry. */
  deadLetteredDeliveries: number;
  deadLetteredMessages: DeadLetteredMessages;
  consumerLag: ConsumerLag;
  ledgerChains: LedgerChainStatus;
}

/** The status an overview shows for the latest verification record (`null`: none yet). */
export function ledgerChainStatus(latest: VerificationRecord | null): LedgerChainStatus {
  if (!latest) return { status: 'pending' };
  if (latest.broken) {
    const b = latest.broken;
    const atEvent = b.streamId !== '';
    return {
      status: 'broken',
      position: b.position,
      reason: b.reason,
      streamId: atEvent ? b.streamId : null,
      revision: atEvent ? b.revision : null,
      checkedAt: latest.checkedAt.toISOString(),
      lastVerifiedPosition: latest.verifiedPosition,
      againstSignedCheckpoint: isSignedCheckpointBreak(b.reason, b.streamId),
    };
  }
  return {
    status: 'verified',
    position: latest.verifiedPosition,
    globalHash: latest.globalHash,
    verifiedAt: latest.checkedAt.toISOString(),
    eventsChecked: latest.eventsChecked,
    lastFullVerificationAt: latest.lastFullAt?.toISOString() ?? null,
    checkpoints: signedCheckpointStatus(latest.checkpoints),
  };
}

/**
 * The Overview (docs/console.md, "API" and "Screens"): the counts of the book
 * ({@link TransactionRepository.overview}), the dead-lettered deliveries (`dispatcher.deliveries`
 * in state `failed`, read-only, through the dispatcher's partial index `deliveries_failed`),
 * the Kafka figures (cached, never failing the page) and the ledger's hash-chain status.
 */
export class OverviewService {
  /**
   * @param ledger.store - where the ledger lives: only a `postgres` ledger is verified by the console.
   * @param ledger.log - the console's verification records.
   */
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly pool: Pool,
    private readonly kafka: KafkaOverview,
    private readonly ledger: { store: 'postgres' | 'kurrentdb'; log: VerificationLog },
  ) {}

  /** @throws ReadModelNotReadyError while `read_model` or `dispatcher` does not exist yet. */
  async overview(): Promise<ConsoleOverview> {
    const [counts, deadLetteredDeliveries, kafka, ledgerChains] = await Promise.all([
      this.transactions.overview(),
      this.deadLetteredDeliveries(),
      this.kafka.read(),
      this.chains(),
    ]);
    return { ...counts, deadLetteredDeliveries, ...kafka, ledgerChains };
  }

  private async deadLetteredDeliveries(): Promise<number> {
    const { rows } = await readReadModel(() =>
      this.pool.query<{ n: string }>("SELECT count(*)::bigint AS n FROM dispatcher.console_deliveries WHERE state = 'failed'"),
    );
    return Number(rows[0]?.n ?? 0);
  }

  private async chains(): Promise<LedgerChainStatus> {
    if (this.ledger.store === 'kurrentdb') {
      return {
        status: 'not_applicable',
        detail: 'The ledger is in KurrentDB: the console verifies PostgreSQL ledgers only. Run ./settle ledger verify against it.',
      };
    }
    return ledgerChainStatus(await this.ledger.log.latest());
  }
}
