// Generated from docs/api/customer-events/*.schema.json by `npm run openapi` (scripts/docs/customer-events.ts): do not edit.
// test/openapi.unit.spec.ts fails when this file is not what the schemas give.

/**
 * Sent when a user's first payment for an entitlement settles (docs/spec.md, section 2): grant the entitlement until `expires_at`.
 */
export interface SubscriptionStarted {
/**
 * Unique id of the event (a UUID from Settle), the idempotency key; also sent as the `webhook-id` header. Immutable: a resend or recovery sends the same id and the same bytes.
 */
event_id: string
/**
 * The event kind.
 */
event: "subscription_started"
/**
 * The entitlement concerned, as the checkout registered it (for example `pro-monthly`).
 */
entitlement: string
/**
 * The customer's own user id, as the checkout registered it.
 */
user_id: string
/**
 * Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the latest expiry wins, whatever the order of arrival.
 */
expires_at: string
/**
 * The settled payment's provider reference (for example `ref_abc`). Always sent by Settle; optional for receivers of older senders.
 */
reference?: string
/**
 * When Settle settled the payment, ISO 8601 UTC with milliseconds. Always sent by Settle; optional for receivers of older senders.
 */
settled_at?: string
/**
 * The ISO 8601 duration the payment bought (for example `P30D`). Always sent by Settle; optional for receivers of older senders.
 */
access_period?: string
}
/**
 * Sent when a later payment for an entitlement the user already holds settles (docs/spec.md, section 2): extend access to `expires_at`. It may reach the receiver before the `subscription_started` it follows.
 */
export interface SubscriptionRenewed {
/**
 * Unique id of the event (a UUID from Settle), the idempotency key; also sent as the `webhook-id` header. Immutable: a resend or recovery sends the same id and the same bytes.
 */
event_id: string
/**
 * The event kind.
 */
event: "subscription_renewed"
/**
 * The entitlement concerned, as the checkout registered it (for example `pro-monthly`).
 */
entitlement: string
/**
 * The customer's own user id, as the checkout registered it.
 */
user_id: string
/**
 * Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the latest expiry wins, whatever the order of arrival.
 */
expires_at: string
/**
 * The settled payment's provider reference (for example `ref_abc`). Always sent by Settle; optional for receivers of older senders.
 */
reference?: string
/**
 * When Settle settled the payment, ISO 8601 UTC with milliseconds. Always sent by Settle; optional for receivers of older senders.
 */
settled_at?: string
/**
 * The ISO 8601 duration the payment bought (for example `P30D`). Always sent by Settle; optional for receivers of older senders.
 */
access_period?: string
}

/** Every customer event kind this build sends or applies, in the order Settle lists them. */
export const CUSTOMER_EVENT_KINDS = ["subscription_started","subscription_renewed"] as const;

/** A customer event of any kind this build knows. */
export type CustomerEvent = SubscriptionStarted | SubscriptionRenewed;

/** The JSON Schema (draft-07) of each kind, as committed. */
export const CUSTOMER_EVENT_SCHEMAS = {
  "subscription_started": {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:settle:customer-event:subscription_started:v1",
    "title": "SubscriptionStarted",
    "description": "Sent when a user's first payment for an entitlement settles (docs/spec.md, section 2): grant the entitlement until `expires_at`.",
    "type": "object",
    "required": [
      "event_id",
      "event",
      "entitlement",
      "user_id",
      "expires_at"
    ],
    "properties": {
      "event_id": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "Unique id of the event (a UUID from Settle), the idempotency key; also sent as the `webhook-id` header. Immutable: a resend or recovery sends the same id and the same bytes."
      },
      "event": {
        "type": "string",
        "enum": [
          "subscription_started"
        ],
        "description": "The event kind."
      },
      "entitlement": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "The entitlement concerned, as the checkout registered it (for example `pro-monthly`)."
      },
      "user_id": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "The customer's own user id, as the checkout registered it."
      },
      "expires_at": {
        "type": "string",
        "format": "date-time",
        "description": "Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the latest expiry wins, whatever the order of arrival."
      },
      "reference": {
        "type": "string",
        "description": "The settled payment's provider reference (for example `ref_abc`). Always sent by Settle; optional for receivers of older senders."
      },
      "settled_at": {
        "type": "string",
        "format": "date-time",
        "description": "When Settle settled the payment, ISO 8601 UTC with milliseconds. Always sent by Settle; optional for receivers of older senders."
      },
      "access_period": {
        "type": "string",
        "description": "The ISO 8601 duration the payment bought (for example `P30D`). Always sent by Settle; optional for receivers of older senders."
      }
    }
  },
  "subscription_renewed": {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:settle:customer-event:subscription_renewed:v1",
    "title": "SubscriptionRenewed",
    "description": "Sent when a later payment for an entitlement the user already holds settles (docs/spec.md, section 2): extend access to `expires_at`. It may reach the receiver before the `subscription_started` it follows.",
    "type": "object",
    "required": [
      "event_id",
      "event",
      "entitlement",
      "user_id",
      "expires_at"
    ],
    "properties": {
      "event_id": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "Unique id of the event (a UUID from Settle), the idempotency key; also sent as the `webhook-id` header. Immutable: a resend or recovery sends the same id and the same bytes."
      },
      "event": {
        "type": "string",
        "enum": [
          "subscription_renewed"
        ],
        "description": "The event kind."
      },
      "entitlement": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "The entitlement concerned, as the checkout registered it (for example `pro-monthly`)."
      },
      "user_id": {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "description": "The customer's own user id, as the checkout registered it."
      },
      "expires_at": {
        "type": "string",
        "format": "date-time",
        "description": "Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the latest expiry wins, whatever the order of arrival."
      },
      "reference": {
        "type": "string",
        "description": "The settled payment's provider reference (for example `ref_abc`). Always sent by Settle; optional for receivers of older senders."
      },
      "settled_at": {
        "type": "string",
        "format": "date-time",
        "description": "When Settle settled the payment, ISO 8601 UTC with milliseconds. Always sent by Settle; optional for receivers of older senders."
      },
      "access_period": {
        "type": "string",
        "description": "The ISO 8601 duration the payment bought (for example `P30D`). Always sent by Settle; optional for receivers of older senders."
      }
    }
  }
} as const;
