/** A JSON object as parsed from a request body and kept in the store. */
export type JsonObject = { [key: string]: unknown };

/** The event kinds this version of the kit applies (docs/spec.md, section 6). */
export const ENTITLEMENT_EVENT_KINDS = ['subscription_started', 'subscription_renewed'] as const;

/** `subscription_started` grants the entitlement; `subscription_renewed` extends it and may arrive first. */
export type EntitlementEventKind = (typeof ENTITLEMENT_EVENT_KINDS)[number];

/**
 * An entitlement event as Settle delivers it (docs/spec.md, section 2, the body of the POST), after the
 * kit validated it. Field names are the wire names.
 */
export interface EntitlementEvent {
  /** Unique id of the event, the idempotency key; also sent as the `webhook-id` header. */
  readonly event_id: string;
  readonly event: EntitlementEventKind;
  /** The entitlement concerned, for example `pro-monthly`. */
  readonly entitlement: string;
  readonly user_id: string;
  /** Access expiry, ISO 8601 with an offset. Immutable per `event_id`. */
  readonly expires_at: string;
  /** The payment's provider reference, for example `ref_abc`, when Settle sends it. */
  readonly reference?: string;
  /** When Settle settled the payment, ISO 8601, when sent. */
  readonly settled_at?: string;
  /** ISO 8601 duration the payment bought, for example `P1M`, when sent. */
  readonly access_period?: string;
}

/** A field-level problem of a payload. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/**
 * The outcome of {@link parseEvent}:
 * - `entitlement`: a known kind, every field valid;
 * - `unknown`: a kind this kit version does not know (recorded and acknowledged, never applied);
 * - `invalid`: not an event; `errors` names the fields.
 */
export type ParsedEvent =
  | { readonly kind: 'entitlement'; readonly event: EntitlementEvent; readonly payload: JsonObject }
  | { readonly kind: 'unknown'; readonly eventId: string; readonly event: string; readonly payload: JsonObject }
  | { readonly kind: 'invalid'; readonly errors: readonly FieldError[] };

const MAX_ID_LENGTH = 255;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function identifier(payload: JsonObject, field: string, errors: FieldError[]): string {
  const value = payload[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    errors.push({ path: field, message: `must be a string of 1 to ${MAX_ID_LENGTH} characters` });
    return '';
  }
  return value;
}

function timestamp(payload: JsonObject, field: string, errors: FieldError[], required: boolean): void {
  const value = payload[field];
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
    errors.push({ path: field, message: 'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-23T10:15:30.000Z' });
  }
}

function optionalString(payload: JsonObject, field: string, errors: FieldError[]): void {
  const value = payload[field];
  if (value !== undefined && typeof value !== 'string') errors.push({ path: field, message: 'must be a string' });
}

/**
 * Validates a parsed JSON body against the event contract. Every event needs `event_id` and
 * `event`; the known kinds also need `user_id`, `entitlement` and `expires_at`. Unknown kinds
 * are not validated further: they are recorded as they came and marked ignored (receiver rule
 * for future kinds), so Settle does not retry them for days.
 *
 * @param body - the value `JSON.parse` returned for the raw body.
 * @returns the event, never throws.
 */
export function parseEvent(body: unknown): ParsedEvent {
  if (!isObject(body)) return { kind: 'invalid', errors: [{ path: '', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const eventId = identifier(body, 'event_id', errors);
  const kind = identifier(body, 'event', errors);
  if (errors.length > 0) return { kind: 'invalid', errors };
  if (!(ENTITLEMENT_EVENT_KINDS as readonly string[]).includes(kind)) {
    return { kind: 'unknown', eventId, event: kind, payload: body };
  }
  identifier(body, 'user_id', errors);
  identifier(body, 'entitlement', errors);
  timestamp(body, 'expires_at', errors, true);
  timestamp(body, 'settled_at', errors, false);
  optionalString(body, 'reference', errors);
  optionalString(body, 'access_period', errors);
  if (errors.length > 0) return { kind: 'invalid', errors };
  return { kind: 'entitlement', event: body as unknown as EntitlementEvent, payload: body };
}
