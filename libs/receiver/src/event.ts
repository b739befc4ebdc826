import { CUSTOMER_EVENT_KINDS, CUSTOMER_EVENT_SCHEMAS, type CustomerEvent } from './generated/customer-events.js';

/** A JSON object as parsed from a request body and kept in the store. */
export type JsonObject = { [key: string]: unknown };

/** The event kinds this version of the kit applies (docs/spec.md, section 6), from their JSON Schemas. */
export const ENTITLEMENT_EVENT_KINDS = CUSTOMER_EVENT_KINDS;

/**
 * `subscription_started` grants the entitlement; `subscription_renewed` extends it and may arrive
 * first; `subscription_revoked` takes back what a refunded, reversed or charged-back payment bought
 * (the expiry may move earlier); `subscription_reinstated` gives it back. Each sets the expiry of
 * the highest `revision` applied.
 */
export type EntitlementEventKind = (typeof ENTITLEMENT_EVENT_KINDS)[number];

/**
 * An entitlement event as Settle delivers it (docs/spec.md, section 2, the body of the POST), after the
 * kit validated it against its kind's JSON Schema (generated into ./generated/customer-events.ts).
 * Field names are the wire names: `event_id` (the idempotency key, also the `webhook-id` header),
 * `event`, `entitlement`, `user_id`, `expires_at` (ISO 8601 with an offset, immutable per
 * `event_id`), `revision` (the event's place in the user's entitlement stream; absent from events
 * sent before revisions existed), and the fields of its kind (`reference`, `settled_at` and
 * `access_period` of a grant; `reference`, `reason` and `changed_at` of a revocation).
 */
export type EntitlementEvent = Readonly<CustomerEvent>;

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

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema keywords of a string field the kit applies; the schemas use no others (test/customer-events.unit.spec.ts). */
interface StringRule {
  readonly type: 'string';
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: 'date-time';
  readonly enum?: readonly string[];
  /** A regular expression the whole value must match (the receipt's `ledger_hash`). */
  readonly pattern?: string;
}

/** The schema keywords of an integer field (`revision`). */
interface IntegerRule {
  readonly type: 'integer';
  readonly minimum?: number;
}

/** The schema keywords of an object field (`receipt`): its own fields, none other when `additionalProperties` is false. */
interface ObjectRule {
  readonly type: 'object';
  readonly required: readonly string[];
  readonly properties: Readonly<Record<string, StringRule | IntegerRule>>;
  readonly additionalProperties?: boolean;
}

type FieldRule = StringRule | IntegerRule | ObjectRule;

/** The problem of one scalar field's value under its rule, or `null` when it holds. */
function violation(value: unknown, rule: StringRule | IntegerRule): string | null {
  if (rule.type === 'integer') {
    const min = rule.minimum ?? Number.MIN_SAFE_INTEGER;
    return Number.isSafeInteger(value) && (value as number) >= min ? null : `must be an integer of at least ${min}`;
  }
  if (rule.format === 'date-time') {
    const valid = typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
    return valid ? null : 'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-23T10:15:30.000Z';
  }
  if (rule.minLength !== undefined || rule.maxLength !== undefined) {
    const min = rule.minLength ?? 0;
    const max = rule.maxLength ?? Number.MAX_SAFE_INTEGER;
    return typeof value === 'string' && value.length >= min && value.length <= max ? null : `must be a string of ${min} to ${max} characters`;
  }
  if (typeof value !== 'string') return 'must be a string';
  if (rule.enum && !rule.enum.includes(value)) return `must be one of ${rule.enum.join(', ')}`;
  if (rule.pattern !== undefined && !new RegExp(rule.pattern, 'u').test(value)) return `must match ${rule.pattern}`;
  return null;
}

/** Checks `payload` against a schema's fields: each required one present, each present one valid; an object field's own fields under `<field>.`. */
function check(
  payload: JsonObject,
  schema: { required: readonly string[]; properties: Readonly<Record<string, FieldRule>> },
  fields: readonly string[],
  errors: FieldError[],
  prefix = '',
): void {
  for (const field of fields) {
    const value = payload[field];
    if (value === undefined && !schema.required.includes(field)) continue;
    const rule = schema.properties[field]!;
    if (rule.type !== 'object') {
      const problem = violation(value, rule);
      if (problem) errors.push({ path: `${prefix}${field}`, message: problem });
      continue;
    }
    if (!isObject(value)) {
      errors.push({ path: `${prefix}${field}`, message: 'must be an object' });
      continue;
    }
    const unknown = rule.additionalProperties === false ? Object.keys(value).filter((k) => !(k in rule.properties)) : [];
    for (const extra of unknown) errors.push({ path: `${prefix}${field}.${extra}`, message: 'is not a field of this object' });
    check(value, rule, Object.keys(rule.properties), errors, `${prefix}${field}.`);
  }
}

/** The envelope every event has, whatever its kind: its id and its kind's name. */
const ENVELOPE = {
  required: ['event_id', 'event'],
  properties: { event_id: CUSTOMER_EVENT_SCHEMAS[CUSTOMER_EVENT_KINDS[0]].properties.event_id, event: { type: 'string', minLength: 1, maxLength: 255 } },
} as const;

/**
 * Validates a parsed JSON body against the event contract, its kind's JSON Schema
 * (docs/api/customer-events/, generated into ./generated/customer-events.ts). Every event needs
 * `event_id` and `event`; the known kinds also need `user_id`, `entitlement` and `expires_at`
 * (strings of 1 to 255 characters, an ISO 8601 timestamp with an offset). Unknown kinds
 * are not validated further: they are recorded as they came and marked ignored (receiver rule
 * for future kinds), so Settle does not retry them for days.
 *
 * @param body - the value `JSON.parse` returned for the raw body.
 * @returns the event, never throws.
 */
export function parseEvent(body: unknown): ParsedEvent {
  if (!isObject(body)) return { kind: 'invalid', errors: [{ path: '', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  check(body, ENVELOPE, ['event_id', 'event'], errors);
  if (errors.length > 0) return { kind: 'invalid', errors };
  const eventId = body.event_id as string;
  const kind = body.event as string;
  if (!(ENTITLEMENT_EVENT_KINDS as readonly string[]).includes(kind)) {
    return { kind: 'unknown', eventId, event: kind, payload: body };
  }
  const schema = CUSTOMER_EVENT_SCHEMAS[kind as EntitlementEventKind];
  check(
    body,
    schema,
    Object.keys(schema.properties).filter((field) => field !== 'event_id' && field !== 'event'),
    errors,
  );
  if (errors.length > 0) return { kind: 'invalid', errors };
  return { kind: 'entitlement', event: body as unknown as EntitlementEvent, payload: body };
}
