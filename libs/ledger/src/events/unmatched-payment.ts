import { PROVIDERS, UNMATCHED_CLOSE_REASONS } from '@settle/domain';
import type { UnmatchedPaymentObservedV1 } from '@settle/messaging';
import { deterministicId } from '@settle/platform';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/** Prefix (category) of the unmatched payment streams (docs/unmatched-payments.md). */
export const UNMATCHED_PAYMENT_STREAM_CATEGORY = 'unmatched';

/** The ledger event types of an unmatched payment's stream: recorded first, then matched once a checkout is registered under its reference. */
export const UNMATCHED_PAYMENT_EVENT_TYPES = {
  recorded: 'UnmatchedPaymentRecorded',
  matched: 'UnmatchedPaymentMatched',
  closed: 'UnmatchedPaymentClosed',
} as const;

/**
 * Ledger stream of a payment Settle was never told about: `unmatched-<reference>`, the reference
 * percent-encoded. Its own category, hash-chained like every stream, apart from the transaction
 * streams (nothing in it is an outcome of a checkout).
 */
export function unmatchedPaymentStream(reference: string): string {
  return `${UNMATCHED_PAYMENT_STREAM_CATEGORY}-${encodeURIComponent(reference)}`;
}

/** The reference of an unmatched payment stream, or `null` for any other stream. */
export function parseUnmatchedPaymentStream(streamId: string): string | null {
  const prefix = `${UNMATCHED_PAYMENT_STREAM_CATEGORY}-`;
  return streamId.startsWith(prefix) ? decodeURIComponent(streamId.slice(prefix.length)) : null;
}

/**
 * The `data` of an `UnmatchedPaymentRecorded` ledger event: what the provider confirmed, server to
 * server, about a cleared payment that has no checkout. Amounts in minor units (`null` when the
 * provider's answer does not carry one: M-Pesa, `terms_verified` false); times ISO 8601 UTC.
 * Unknown extra fields are kept.
 *
 * The payer's identifiers (docs/privacy.md, "Crypto-shredding" and "Masked forms"):
 * - `customer_email`, `customer_phone`: as the verifier published them, sealed under the
 *   customer's subject key (`sealed:v1:<key id>:<base64url>`, fields `customer_email` and
 *   `customer_phone`), so that erasing the customer turns them into noise; `null` when the provider
 *   reported none or the verifier held no privacy vault. Events written before sealing hold the
 *   plaintext.
 * - `customer_email_masked`, `customer_phone_masked`: the masked forms people are shown
 *   (`c•••@example.com`, `+254•••678`), which stay after an erasure; `null` when there is none.
 *   Absent from events written before masking (read as `null`).
 */
export const unmatchedPaymentRecordedData = z.looseObject({
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  amount_minor: z.number().int().nonnegative().nullable(),
  currency: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_phone: z.string().nullable(),
  customer_email_masked: z.string().nullable().optional(),
  customer_phone_masked: z.string().nullable().optional(),
  terms_verified: z.boolean(),
  provider_status: z.string().nullable(),
  provider_transaction_id: z.string().nullable(),
  verified_at: z.iso.datetime(),
});

/** See {@link unmatchedPaymentRecordedData}. */
export type UnmatchedPaymentRecordedData = z.infer<typeof unmatchedPaymentRecordedData>;

/** The `data` of an `UnmatchedPaymentMatched` ledger event: a checkout was registered under the payment's reference (`registration_event_id`). */
export const unmatchedPaymentMatchedData = z.looseObject({
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  matched_at: z.iso.datetime(),
  registration_event_id: z.string().min(1),
});

/** See {@link unmatchedPaymentMatchedData}. */
export type UnmatchedPaymentMatchedData = z.infer<typeof unmatchedPaymentMatchedData>;

/** The `data` of an `UnmatchedPaymentClosed` ledger event: an operator closed the payment without a checkout, with a reason. */
export const unmatchedPaymentClosedData = z.looseObject({
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  reason: z.enum(UNMATCHED_CLOSE_REASONS),
  note: z.string().nullable(),
  closed_by: z.string().min(1),
  closed_at: z.iso.datetime(),
});

/** See {@link unmatchedPaymentClosedData}. */
export type UnmatchedPaymentClosedData = z.infer<typeof unmatchedPaymentClosedData>;

/**
 * The ledger event an answer about an unmatched payment stands for: `UnmatchedPaymentRecorded`
 * for `recorded`, `UnmatchedPaymentMatched` for `matched`, `UnmatchedPaymentClosed` for `closed`;
 * `null` for an answer that records nothing (declined, unresolved). Its id derives from the answer's, so a redelivered answer is
 * stored once.
 */
export function unmatchedPaymentLedgerEvent(observed: UnmatchedPaymentObservedV1): (LedgerEventInput & { data: Record<string, unknown> }) | null {
  const metadata = { correlationId: observed.correlation_id, causationId: observed.event_id };
  const eventId = deterministicId('LedgerEvent', observed.event_id);
  const at = new Date(observed.occurred_at).toISOString();
  if (observed.observation === 'recorded') {
    const data: UnmatchedPaymentRecordedData = {
      reference: observed.reference,
      provider: observed.provider,
      amount_minor: observed.amount_minor,
      currency: observed.currency,
      customer_email: observed.customer_email,
      customer_phone: observed.customer_phone,
      customer_email_masked: observed.customer_email_masked ?? null,
      customer_phone_masked: observed.customer_phone_masked ?? null,
      terms_verified: observed.terms_verified,
      provider_status: observed.provider_status,
      provider_transaction_id: observed.provider_transaction_id,
      verified_at: at,
    };
    return { eventId, type: UNMATCHED_PAYMENT_EVENT_TYPES.recorded, data, metadata };
  }
  if (observed.observation === 'matched') {
    const data: UnmatchedPaymentMatchedData = {
      reference: observed.reference,
      provider: observed.provider,
      matched_at: at,
      registration_event_id: observed.causation_id,
    };
    return { eventId, type: UNMATCHED_PAYMENT_EVENT_TYPES.matched, data, metadata };
  }
  if (observed.observation === 'closed' && observed.close_reason !== null && observed.closed_by !== null) {
    const data: UnmatchedPaymentClosedData = {
      reference: observed.reference,
      provider: observed.provider,
      reason: observed.close_reason,
      note: observed.close_note,
      closed_by: observed.closed_by,
      closed_at: at,
    };
    return { eventId, type: UNMATCHED_PAYMENT_EVENT_TYPES.closed, data, metadata };
  }
  return null;
}

/**
 * The typed data of a stored `UnmatchedPaymentRecorded`.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed record (not written by the projector).
 */
export function unmatchedPaymentRecordedOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): UnmatchedPaymentRecordedData {
  const parsed = unmatchedPaymentRecordedData.safeParse(event.data);
  if (event.type !== UNMATCHED_PAYMENT_EVENT_TYPES.recorded || !parsed.success)
    throw new LedgerEventShapeError(event.eventId, event.position, 'an unmatched payment record');
  return parsed.data;
}
