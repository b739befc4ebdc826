import {
  CONSENSUS_CHECK_NAMES,
  ENTITLEMENT_STATUSES,
  OUTCOME_EVENT_TYPES,
  PROVIDERS,
  SettleError,
  TRANSACTION_STATUSES,
  VERDICT_KINDS,
  VERIFICATION_TRIGGERS,
  type ErrorKind,
  type TransactionOutcome,
} from '@settle/domain';
import { CONSENSUS_OUTCOMES } from '@settle/messaging';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';

/** Prefix (category) of the transaction streams. */
export const TRANSACTION_STREAM_CATEGORY = 'transaction';

/** Ledger stream of a transaction: `transaction-<reference>`. */
export function transactionStream(reference: string): string {
  return `${TRANSACTION_STREAM_CATEGORY}-${reference}`;
}

/** The reference of a transaction stream, or `null` for any other stream. */
export function parseTransactionStream(streamId: string): string | null {
  return streamId.startsWith(`${TRANSACTION_STREAM_CATEGORY}-`) ? streamId.slice(TRANSACTION_STREAM_CATEGORY.length + 1) : null;
}

/** A stored ledger event does not have the shape its type promises (it was not written by the projector, or the store is corrupt). */
export class LedgerEventShapeError extends SettleError {
  readonly code = 'LEDGER.MALFORMED_EVENT';
  readonly kind: ErrorKind = 'internal';
  constructor(
    readonly eventId: string,
    readonly position: number,
    what: string,
  ) {
    super(`ledger event ${eventId} at position ${position} is not ${what}`);
    this.name = 'LedgerEventShapeError';
  }
}

const check = z.object({
  check: z.enum(CONSENSUS_CHECK_NAMES),
  passed: z.boolean(),
  code: z.string().nullable(),
  expected: z.string(),
  observed: z.string(),
});

/**
 * The `data` of an outcome event of a transaction stream (`TransactionSettled`,
 * `PaymentDeclined`, `PaymentHeldInReview`, `StateMismatchDetected`, `ManualReviewRequired`;
 * docs/spec.md, section 1, "Immutable Ledger", and docs/ledger.md): the consensus result that caused
 * it, with the four checks, what was expected (the registration) and what the provider
 * reported. Amounts are integers in minor units; `decided_at` is epoch milliseconds. The one
 * definition of the payload: the projector writes it, the read models and the outboxes read it.
 * Unknown extra fields are kept (events written by later versions stay readable).
 */
export const transactionOutcomeData = z.looseObject({
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  outcome: z.enum(CONSENSUS_OUTCOMES),
  state: z.enum(TRANSACTION_STATUSES),
  entitlement_status: z.enum(ENTITLEMENT_STATUSES),
  trigger: z.enum(VERIFICATION_TRIGGERS),
  verdict: z.enum(VERDICT_KINDS),
  provider_status: z.string().nullable(),
  detail: z.string().nullable(),
  checks: z.array(check),
  expected: z.looseObject({
    amount_minor: z.number().int(),
    currency: z.string().min(1),
    user_id: z.string(),
    entitlement: z.string(),
  }),
  observed: z.looseObject({
    amount_minor: z.number().int().nullable(),
    charged_amount_minor: z.number().int().nullable(),
    currency: z.string().nullable(),
    provider_transaction_id: z.string().nullable(),
  }),
  /** When the outcome was decided, epoch milliseconds. */
  decided_at: z.number().int(),
});

/** See {@link transactionOutcomeData}. */
export type TransactionOutcomeData = z.infer<typeof transactionOutcomeData>;

/** Type names of the outcome events a transaction stream holds. */
export type TransactionOutcomeType = TransactionOutcome['type'];

/** A transaction outcome as appended: its type, typed data, and metadata (causation: the consensus result's event id). */
export type TransactionOutcomeEvent = LedgerEventInput & { type: TransactionOutcomeType; data: TransactionOutcomeData };

/** Whether a ledger event type is a transaction outcome. */
export function isTransactionOutcomeType(type: string): type is TransactionOutcomeType {
  return (OUTCOME_EVENT_TYPES as ReadonlySet<string>).has(type);
}

/**
 * The typed outcome a stored event of a transaction stream stands for.
 *
 * @throws LedgerEventShapeError when its type or data is not a transaction outcome.
 */
export function transactionOutcomeOf(event: Pick<RecordedLedgerEvent, 'eventId' | 'type' | 'data' | 'position'>): {
  type: TransactionOutcomeType;
  data: TransactionOutcomeData;
} {
  const parsed = transactionOutcomeData.safeParse(event.data);
  if (!isTransactionOutcomeType(event.type) || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'a transaction outcome');
  return { type: event.type, data: parsed.data };
}
