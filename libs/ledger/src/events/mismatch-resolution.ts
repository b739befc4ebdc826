import { MISMATCH_RESOLUTION_EVENT_TYPES, PROVIDERS, type MismatchResolutionEvent, type ProviderName } from '@settle/domain';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/** Type names of the facts of a State Mismatch's resolution (docs/state-machine.md, "Resolving a State Mismatch"). */
export type MismatchResolutionType = MismatchResolutionEvent['type'];

/** Whether a ledger event type is a fact of a State Mismatch's resolution. */
export function isMismatchResolutionType(type: string): type is MismatchResolutionType {
  return (MISMATCH_RESOLUTION_EVENT_TYPES as readonly string[]).includes(type);
}

const amount = z.object({ amount_minor: z.number().int(), currency: z.string().min(1) });
const observedAmount = z.object({ amount_minor: z.number().int().nullable(), currency: z.string().nullable() });

/**
 * The `data` of a resolution fact on a transaction stream, appended after its State Mismatch
 * outcome, which it never changes (docs/state-machine.md, "Resolving a State Mismatch"):
 * - `SettledByOverride`: two people accepted the payment as paid: who proposed and who approved
 *   it (e-mails), the proposal, their note, the registered and captured amounts and the difference
 *   accepted (minor units; `null` across currencies); its grant follows on the entitlement stream.
 * - `MismatchRefundDue`: an admin closed it as to be refunded (`closed_by`, `note`).
 * - `MismatchRefundDueClosed`: the provider showed the captured money returned (`returned_minor`).
 *
 * `decided_at` is epoch milliseconds. Fields a type does not use are `null`. Unknown extra fields are kept.
 */
export const mismatchResolutionData = z.looseObject({
  reference: z.string().min(1),
  provider: z.enum(PROVIDERS),
  user_id: z.string(),
  entitlement: z.string(),
  /** The operator's request (ingestion's `MismatchResolutionRequested.event_id`). */
  request_id: z.string().min(1),
  decided_at: z.number().int(),
  expected: amount,
  observed: observedAmount,
  proposal_id: z.string().nullable(),
  proposed_by: z.string().nullable(),
  approved_by: z.string().nullable(),
  closed_by: z.string().nullable(),
  note: z.string().nullable(),
  /** Registered minus captured, minor units (`SettledByOverride`, one currency). */
  difference_minor: z.number().int().nullable(),
  /** The access period the grant of a `SettledByOverride` bought (ISO 8601 duration). */
  access_period: z.string().nullable(),
  /** Money returned by then, minor units (`MismatchRefundDueClosed`). */
  returned_minor: z.number().int().nullable(),
});

/** See {@link mismatchResolutionData}. */
export type MismatchResolutionData = z.infer<typeof mismatchResolutionData>;

/** What a resolution fact needs beside the decided event: the payment's terms and the request. */
export interface ResolutionContext {
  readonly reference: string;
  readonly provider: ProviderName;
  readonly userId: string;
  readonly entitlement: string;
  readonly expected: { readonly amountMinor: number; readonly currency: string };
  readonly observed: { readonly amountMinor: number | null; readonly currency: string | null };
  readonly accessPeriod: string | null;
  readonly requestId: string;
  readonly eventId: string;
  readonly correlationId: string;
  /** The message that caused it (the request, or the money observation that closed a refund due). */
  readonly causationId: string;
}

/** The ledger event recording a resolution fact; its id comes with the context (derived from the request, so a redelivery stores it once). */
export function mismatchResolutionLedgerEvent(
  event: MismatchResolutionEvent,
  c: ResolutionContext,
): LedgerEventInput & { type: MismatchResolutionType; data: MismatchResolutionData } {
  const override = event.type === 'SettledByOverride' ? event.data : null;
  const due = event.type === 'MismatchRefundDue' ? event.data : null;
  const data: MismatchResolutionData = {
    reference: c.reference,
    provider: c.provider,
    user_id: c.userId,
    entitlement: c.entitlement,
    request_id: c.requestId,
    decided_at: event.data.decidedAt,
    expected: { amount_minor: c.expected.amountMinor, currency: c.expected.currency },
    observed: { amount_minor: c.observed.amountMinor, currency: c.observed.currency },
    proposal_id: override?.proposalId ?? null,
    proposed_by: override?.proposedBy ?? null,
    approved_by: override?.approvedBy ?? null,
    closed_by: due?.closedBy ?? null,
    note: override?.note ?? due?.note ?? null,
    difference_minor: override?.differenceMinor ?? null,
    access_period: override ? c.accessPeriod : null,
    returned_minor: event.type === 'MismatchRefundDueClosed' ? event.data.returnedMinor : null,
  };
  return { eventId: c.eventId, type: event.type, data, metadata: { correlationId: c.correlationId, causationId: c.causationId } };
}

/**
 * The typed data of a stored resolution fact.
 *
 * @throws LedgerEventShapeError when the event is not a well-formed resolution fact.
 */
export function mismatchResolutionDataOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): {
  type: MismatchResolutionType;
  data: MismatchResolutionData;
} {
  const parsed = mismatchResolutionData.safeParse(event.data);
  if (!isMismatchResolutionType(event.type) || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'a State Mismatch resolution');
  return { type: event.type, data: parsed.data };
}

/** The fields of a stored `SettledByOverride` that name who decided it, present on every one. */
export interface OverrideDeciders {
  readonly proposalId: string;
  readonly proposedBy: string;
  readonly approvedBy: string;
  readonly note: string;
}

/**
 * Who decided a stored `SettledByOverride`, and why.
 *
 * @throws LedgerEventShapeError when the event is no well-formed `SettledByOverride`.
 */
export function overrideDecidersOf(event: Pick<RecordedLedgerEvent, 'type' | 'data' | 'eventId' | 'position'>): OverrideDeciders {
  const { type, data: d } = mismatchResolutionDataOf(event);
  if (type !== 'SettledByOverride' || d.proposal_id === null || d.proposed_by === null || d.approved_by === null || d.note === null) {
    throw new LedgerEventShapeError(event.eventId, event.position, 'a settlement by override');
  }
  return { proposalId: d.proposal_id, proposedBy: d.proposed_by, approvedBy: d.approved_by, note: d.note };
}
