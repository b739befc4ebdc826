import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/**
 * The ledger's stream of erasures (docs/privacy.md, "Erasure"): one `SubjectErased` fact per
 * erasure of a data subject (GDPR article 17). It names no subject: the payments and unmatched
 * payments by reference, the destroyed keys by id.
 */
export const PRIVACY_ERASURE_STREAM = 'privacy-erasures';

/** The event type of an erasure fact. */
export const SUBJECT_ERASED = 'SubjectErased';

/** One place an erasure reached (`ingestion.checkouts`, `privacy_keys.subject_keys`, ...) and how many rows it changed there. */
const erasedPlace = z.object({ place: z.string().min(1), rows: z.number().int().nonnegative(), how: z.string().min(1) });

/** One place that still holds the subject's data after the erasure, and why. */
const remainingPlace = z.object({ place: z.string().min(1), why: z.string().min(1) });

/**
 * The `data` of a `SubjectErased` event. Holds no personal data (docs/privacy.md, "Erasure"):
 *
 * - `erasure_id`: a random UUID, the erasure's own id (the event's id derives from it);
 * - `subject_kind`: `user` or `customer` (never the subject's identifier);
 * - `transaction_references`: the payments whose registration named the subject: their
 *   customer check reads `erased` from now on, in the read models and in later verifications;
 * - `unmatched_references`: the unmatched payments whose provider reported the subject;
 * - `destroyed_key_ids`: the subjects' data keys destroyed (values sealed under them read `erased`);
 * - `erased`: where data was erased and how; `remaining`: what still holds it, and why;
 * - `requested_by`, `approved_by` (`null` from the command line), `reason`; `erased_at` ISO 8601 UTC.
 */
export const subjectErasedData = z.looseObject({
  erasure_id: z.uuid(),
  subject_kind: z.enum(['user', 'customer']),
  transaction_references: z.array(z.string().min(1)),
  unmatched_references: z.array(z.string().min(1)),
  destroyed_key_ids: z.array(z.string().min(1)),
  erased: z.array(erasedPlace),
  remaining: z.array(remainingPlace),
  requested_by: z.string().min(1),
  approved_by: z.string().min(1).nullable(),
  reason: z.string().min(1),
  erased_at: z.iso.datetime(),
});

/** See {@link subjectErasedData}. */
export type SubjectErasedData = z.infer<typeof subjectErasedData>;

/** The ledger event of an erasure; its id is the erasure's, so a retried append is stored once. */
export function subjectErasedEvent(data: SubjectErasedData): LedgerEventInput {
  return { eventId: data.erasure_id, type: SUBJECT_ERASED, data, metadata: { correlationId: data.erasure_id, causationId: data.erasure_id } };
}

/**
 * The typed data of a stored erasure fact.
 *
 * @throws LedgerEventShapeError when it is not one.
 */
export function subjectErasedOf(event: Pick<RecordedLedgerEvent, 'eventId' | 'position' | 'type' | 'data'>): SubjectErasedData {
  const parsed = subjectErasedData.safeParse(event.data);
  if (event.type !== SUBJECT_ERASED || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'a SubjectErased event');
  return parsed.data;
}
