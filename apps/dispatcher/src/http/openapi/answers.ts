/**
 * The dispatcher admin API's answers as schemas (docs/delivery.md, the admin API table;
 * docs/api.md), the source of its OpenAPI document's response bodies. Strict objects: the API
 * tests parse real answers with them (libs/testing/src/answer-conformance.ts), so a field added to
 * an answer and not here (or the reverse) fails a test instead of drifting.
 */
import { ENTITLEMENT_EVENT_KINDS } from '@settle/domain';
import { isoTime } from '@settle/http';
import { z } from 'zod';

const endpointFields = {
  id: z.uuid(),
  url: z.string().describe('Where signed entitlement events are POSTed'),
  description: z.string().nullable(),
  event_kinds: z.array(z.enum(ENTITLEMENT_EVENT_KINDS)).describe('The entitlement event kinds it receives'),
  enabled: z.boolean(),
  disabled_reason: z
    .string()
    .nullable()
    .describe('`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled'),
  disabled_at: isoTime.nullable(),
  failing_since: isoTime.nullable().describe('First failure of the current run of failed attempts; `null` after a success'),
  previous_secret_expires_at: isoTime.nullable().describe('Until when the secret before the last rotation still signs too'),
  created_at: isoTime,
  updated_at: isoTime,
};

/** An endpoint as the admin API shows it: never its secret. */
export const endpointAnswer = z.strictObject(endpointFields);

/** `POST /v1/admin/endpoints`, `POST /v1/admin/endpoints/{id}/rotate-secret`: the endpoint and its new signing secret, shown this once. */
export const endpointWithSecretAnswer = z.strictObject({
  ...endpointFields,
  secret: z.string().describe("`whsec_...`: the Standard Webhooks signing secret, shown this once (kept only in the dispatcher's vault)"),
});

/** `GET /v1/admin/endpoints`. */
export const endpointListAnswer = z.strictObject({ endpoints: z.array(endpointAnswer) });

const deliveryFields = {
  delivery_id: z.number().int(),
  event_id: z.uuid().describe("The entitlement event's id: the receiver's idempotency key"),
  event: z.enum(ENTITLEMENT_EVENT_KINDS),
  user_id: z.string(),
  endpoint_id: z.uuid(),
  state: z.enum(['pending', 'delivered', 'failed', 'cancelled']).describe('`failed`: dead-lettered after every retry'),
  attempts: z.number().int().describe('Delivery attempts so far'),
  next_attempt_at: isoTime.nullable().describe('While `pending`: when the next attempt is due'),
  delivered_at: isoTime.nullable(),
  last_status: z.number().int().nullable().describe("The endpoint's last HTTP status; `null` for none (a time-out, a refused connection)"),
  last_error: z.string().nullable(),
  recorded_at: isoTime,
};

/** `GET /v1/admin/deliveries`: one page, newest first. */
export const deliveryPageAnswer = z.strictObject({
  deliveries: z.array(z.strictObject(deliveryFields)),
  next_before: z.number().int().nullable().describe('Pass as `before` for the next page; `null` on the last'),
});

/** `GET /v1/admin/events/{eventId}/deliveries`: every delivery of the event, with every attempt. */
export const eventDeliveriesAnswer = z.strictObject({
  event_id: z.uuid(),
  deliveries: z.array(
    z.strictObject({
      ...deliveryFields,
      attempt_log: z.array(
        z.strictObject({
          attempt: z.number().int(),
          started_at: isoTime,
          latency_ms: z.number().int().describe('Milliseconds'),
          status: z.number().int().nullable().describe("The endpoint's HTTP status; `null` for none"),
          outcome: z.string().describe('`delivered`, `failed`, `gone` or `throttled`'),
          error: z.string().nullable(),
          response_excerpt: z.string().nullable().describe("The start of the endpoint's answer"),
          next_attempt_at: isoTime.nullable(),
        }),
      ),
    }),
  ),
});

/** `POST /v1/admin/events/{eventId}/resend`, `POST /v1/admin/endpoints/{id}/recover`. */
export const requeuedAnswer = z.strictObject({ requeued: z.number().int().describe('Deliveries put back in the schedule') });

/** `GET /v1/receipts/{eventId}/proof`: a delivered event's proof against the latest signed checkpoint (docs/ledger.md, "Receipts"). */
export const receiptProofAnswer = z.strictObject({
  event_id: z.uuid(),
  receipt: z.strictObject({
    ledger_position: z.number().int().describe("The event's global position in the ledger"),
    ledger_hash: z.string().describe('Its stream hash, 64 hex digits'),
  }),
  checkpoint: z.string().describe('The signed checkpoint (a signed note: origin, size, root, `global` and `time` lines, a blank line, signatures)'),
  tree_size: z.number().int().describe("The checkpoint's size: the tree the proof is in"),
  leaf_index: z.number().int().describe('`ledger_position - 1`'),
  inclusion_proof: z.array(z.string()).describe('RFC 9162 inclusion proof, 64-hex-digit hashes from the leaf up'),
});
