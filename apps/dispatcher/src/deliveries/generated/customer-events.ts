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
 * Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the expiry of the highest `revision` applied wins, whatever the order of arrival (for grants alone: the latest expiry).
 */
expires_at: string
/**
 * The event's revision in the user's entitlement stream (0 for the first grant, then one more per grant, revocation or reinstatement). A receiver keeps the `expires_at` of the highest revision it applied: for a stream that only grants that is the latest expiry (the spec's rule), and a revocation can shorten access while a stale renewal cannot undo it (docs/delivery.md, "Access follows the money"). Always sent by Settle; absent from events sent before revocations existed.
 */
revision?: number
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
/**
 * The customer's receipt for this event (docs/ledger.md, "Receipts"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed.
 */
receipt?: {
/**
 * The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one.
 */
ledger_position: number
/**
 * The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || "<ledger_position>\n<ledger_hash>").
 */
ledger_hash: string
}
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
 * Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the expiry of the highest `revision` applied wins, whatever the order of arrival (for grants alone: the latest expiry).
 */
expires_at: string
/**
 * The event's revision in the user's entitlement stream (0 for the first grant, then one more per grant, revocation or reinstatement). A receiver keeps the `expires_at` of the highest revision it applied: for a stream that only grants that is the latest expiry (the spec's rule), and a revocation can shorten access while a stale renewal cannot undo it (docs/delivery.md, "Access follows the money"). Always sent by Settle; absent from events sent before revocations existed.
 */
revision?: number
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
/**
 * The customer's receipt for this event (docs/ledger.md, "Receipts"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed.
 */
receipt?: {
/**
 * The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one.
 */
ledger_position: number
/**
 * The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || "<ledger_position>\n<ledger_hash>").
 */
ledger_hash: string
}
}
/**
 * Sent when the money of a payment that bought access went back to the payer after it settled (a full refund, a reversal, a lost dispute; a partial refund or an opened dispute where the entitlement's policy says so): the grant that payment bought is taken back, and `expires_at` is recomputed from the payments still in force (docs/delivery.md, "Access follows the money"). Apply it by `revision`, not by the later expiry.
 */
export interface SubscriptionRevoked {
/**
 * Unique id of the event (a UUID from Settle), the idempotency key; also sent as the `webhook-id` header. Immutable: a resend or recovery sends the same id and the same bytes.
 */
event_id: string
/**
 * The event kind.
 */
event: "subscription_revoked"
/**
 * The entitlement concerned, as the checkout registered it (for example `pro-monthly`).
 */
entitlement: string
/**
 * The customer's own user id, as the checkout registered it.
 */
user_id: string
/**
 * Access expiry after the change, ISO 8601 UTC with milliseconds (RFC 3339): what the user's payments still in force buy; the change's time when none is (access ends now). May be earlier than an expiry applied before. Immutable per `event_id`.
 */
expires_at: string
/**
 * The event's revision in the user's entitlement stream. Apply `expires_at` only if this revision is higher than the highest applied for the user and entitlement: a revocation then wins over every earlier grant, whatever the order of arrival, and a later grant wins over it (docs/delivery.md, "Access follows the money").
 */
revision: number
/**
 * The payment whose money moved (the payment reference of the grant this event takes back or gives back).
 */
reference: string
/**
 * Why: the payment was `refunded` in full, `partially_refunded` (under a policy that revokes), `reversed` by the provider or the payer's bank, `charged_back` (a dispute lost), or is `disputed` (under a policy that suspends while a dispute is open).
 */
reason: ("refunded" | "partially_refunded" | "reversed" | "charged_back" | "disputed")
/**
 * When Settle decided the change, ISO 8601 UTC with milliseconds.
 */
changed_at?: string
/**
 * The customer's receipt for this event (docs/ledger.md, "Receipts"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed.
 */
receipt?: {
/**
 * The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one.
 */
ledger_position: number
/**
 * The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || "<ledger_position>\n<ledger_hash>").
 */
ledger_hash: string
}
}
/**
 * Sent when a grant revoked before is in force again (a dispute that suspended access was won; a refund recorded as succeeded failed at the provider): `expires_at` is recomputed with that payment again (docs/delivery.md, "Access follows the money"). Apply it by `revision`.
 */
export interface SubscriptionReinstated {
/**
 * Unique id of the event (a UUID from Settle), the idempotency key; also sent as the `webhook-id` header. Immutable: a resend or recovery sends the same id and the same bytes.
 */
event_id: string
/**
 * The event kind.
 */
event: "subscription_reinstated"
/**
 * The entitlement concerned, as the checkout registered it (for example `pro-monthly`).
 */
entitlement: string
/**
 * The customer's own user id, as the checkout registered it.
 */
user_id: string
/**
 * Access expiry after the change, ISO 8601 UTC with milliseconds (RFC 3339): what the user's payments still in force buy; the change's time when none is (access ends now). May be earlier than an expiry applied before. Immutable per `event_id`.
 */
expires_at: string
/**
 * The event's revision in the user's entitlement stream. Apply `expires_at` only if this revision is higher than the highest applied for the user and entitlement: a revocation then wins over every earlier grant, whatever the order of arrival, and a later grant wins over it (docs/delivery.md, "Access follows the money").
 */
revision: number
/**
 * The payment whose money moved (the payment reference of the grant this event takes back or gives back).
 */
reference: string
/**
 * When Settle decided the change, ISO 8601 UTC with milliseconds.
 */
changed_at?: string
/**
 * The customer's receipt for this event (docs/ledger.md, "Receipts"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed.
 */
receipt?: {
/**
 * The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one.
 */
ledger_position: number
/**
 * The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || "<ledger_position>\n<ledger_hash>").
 */
ledger_hash: string
}
}

/** Every customer event kind this build sends or applies, in the order Settle lists them. */
export const CUSTOMER_EVENT_KINDS = ["subscription_started","subscription_renewed","subscription_revoked","subscription_reinstated"] as const;

/** A customer event of any kind this build knows. */
export type CustomerEvent = SubscriptionStarted | SubscriptionRenewed | SubscriptionRevoked | SubscriptionReinstated;

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
        "description": "Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the expiry of the highest `revision` applied wins, whatever the order of arrival (for grants alone: the latest expiry)."
      },
      "revision": {
        "type": "integer",
        "minimum": 0,
        "description": "The event's revision in the user's entitlement stream (0 for the first grant, then one more per grant, revocation or reinstatement). A receiver keeps the `expires_at` of the highest revision it applied: for a stream that only grants that is the latest expiry (the spec's rule), and a revocation can shorten access while a stale renewal cannot undo it (docs/delivery.md, \"Access follows the money\"). Always sent by Settle; absent from events sent before revocations existed."
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
      },
      "receipt": {
        "type": "object",
        "required": [
          "ledger_position",
          "ledger_hash"
        ],
        "additionalProperties": false,
        "properties": {
          "ledger_position": {
            "type": "integer",
            "minimum": 1,
            "description": "The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one."
          },
          "ledger_hash": {
            "type": "string",
            "pattern": "^[0-9a-f]{64}$",
            "description": "The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || \"<ledger_position>\\n<ledger_hash>\")."
          }
        },
        "description": "The customer's receipt for this event (docs/ledger.md, \"Receipts\"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed."
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
        "description": "Access expiry, ISO 8601 UTC with milliseconds (RFC 3339). Immutable per `event_id`; the expiry of the highest `revision` applied wins, whatever the order of arrival (for grants alone: the latest expiry)."
      },
      "revision": {
        "type": "integer",
        "minimum": 0,
        "description": "The event's revision in the user's entitlement stream (0 for the first grant, then one more per grant, revocation or reinstatement). A receiver keeps the `expires_at` of the highest revision it applied: for a stream that only grants that is the latest expiry (the spec's rule), and a revocation can shorten access while a stale renewal cannot undo it (docs/delivery.md, \"Access follows the money\"). Always sent by Settle; absent from events sent before revocations existed."
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
      },
      "receipt": {
        "type": "object",
        "required": [
          "ledger_position",
          "ledger_hash"
        ],
        "additionalProperties": false,
        "properties": {
          "ledger_position": {
            "type": "integer",
            "minimum": 1,
            "description": "The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one."
          },
          "ledger_hash": {
            "type": "string",
            "pattern": "^[0-9a-f]{64}$",
            "description": "The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || \"<ledger_position>\\n<ledger_hash>\")."
          }
        },
        "description": "The customer's receipt for this event (docs/ledger.md, \"Receipts\"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed."
      }
    }
  },
  "subscription_revoked": {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:settle:customer-event:subscription_revoked:v1",
    "title": "SubscriptionRevoked",
    "description": "Sent when the money of a payment that bought access went back to the payer after it settled (a full refund, a reversal, a lost dispute; a partial refund or an opened dispute where the entitlement's policy says so): the grant that payment bought is taken back, and `expires_at` is recomputed from the payments still in force (docs/delivery.md, \"Access follows the money\"). Apply it by `revision`, not by the later expiry.",
    "type": "object",
    "required": [
      "event_id",
      "event",
      "entitlement",
      "user_id",
      "expires_at",
      "revision",
      "reference",
      "reason"
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
          "subscription_revoked"
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
        "description": "Access expiry after the change, ISO 8601 UTC with milliseconds (RFC 3339): what the user's payments still in force buy; the change's time when none is (access ends now). May be earlier than an expiry applied before. Immutable per `event_id`."
      },
      "revision": {
        "type": "integer",
        "minimum": 0,
        "description": "The event's revision in the user's entitlement stream. Apply `expires_at` only if this revision is higher than the highest applied for the user and entitlement: a revocation then wins over every earlier grant, whatever the order of arrival, and a later grant wins over it (docs/delivery.md, \"Access follows the money\")."
      },
      "reference": {
        "type": "string",
        "description": "The payment whose money moved (the payment reference of the grant this event takes back or gives back)."
      },
      "reason": {
        "type": "string",
        "enum": [
          "refunded",
          "partially_refunded",
          "reversed",
          "charged_back",
          "disputed"
        ],
        "description": "Why: the payment was `refunded` in full, `partially_refunded` (under a policy that revokes), `reversed` by the provider or the payer's bank, `charged_back` (a dispute lost), or is `disputed` (under a policy that suspends while a dispute is open)."
      },
      "changed_at": {
        "type": "string",
        "format": "date-time",
        "description": "When Settle decided the change, ISO 8601 UTC with milliseconds."
      },
      "receipt": {
        "type": "object",
        "required": [
          "ledger_position",
          "ledger_hash"
        ],
        "additionalProperties": false,
        "properties": {
          "ledger_position": {
            "type": "integer",
            "minimum": 1,
            "description": "The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one."
          },
          "ledger_hash": {
            "type": "string",
            "pattern": "^[0-9a-f]{64}$",
            "description": "The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || \"<ledger_position>\\n<ledger_hash>\")."
          }
        },
        "description": "The customer's receipt for this event (docs/ledger.md, \"Receipts\"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed."
      }
    }
  },
  "subscription_reinstated": {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:settle:customer-event:subscription_reinstated:v1",
    "title": "SubscriptionReinstated",
    "description": "Sent when a grant revoked before is in force again (a dispute that suspended access was won; a refund recorded as succeeded failed at the provider): `expires_at` is recomputed with that payment again (docs/delivery.md, \"Access follows the money\"). Apply it by `revision`.",
    "type": "object",
    "required": [
      "event_id",
      "event",
      "entitlement",
      "user_id",
      "expires_at",
      "revision",
      "reference"
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
          "subscription_reinstated"
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
        "description": "Access expiry after the change, ISO 8601 UTC with milliseconds (RFC 3339): what the user's payments still in force buy; the change's time when none is (access ends now). May be earlier than an expiry applied before. Immutable per `event_id`."
      },
      "revision": {
        "type": "integer",
        "minimum": 0,
        "description": "The event's revision in the user's entitlement stream. Apply `expires_at` only if this revision is higher than the highest applied for the user and entitlement: a revocation then wins over every earlier grant, whatever the order of arrival, and a later grant wins over it (docs/delivery.md, \"Access follows the money\")."
      },
      "reference": {
        "type": "string",
        "description": "The payment whose money moved (the payment reference of the grant this event takes back or gives back)."
      },
      "changed_at": {
        "type": "string",
        "format": "date-time",
        "description": "When Settle decided the change, ISO 8601 UTC with milliseconds."
      },
      "receipt": {
        "type": "object",
        "required": [
          "ledger_position",
          "ledger_hash"
        ],
        "additionalProperties": false,
        "properties": {
          "ledger_position": {
            "type": "integer",
            "minimum": 1,
            "description": "The event's global position in Settle's ledger: the leaf index of the Merkle tree its signed checkpoints commit to, plus one."
          },
          "ledger_hash": {
            "type": "string",
            "pattern": "^[0-9a-f]{64}$",
            "description": "The event's stream hash in the ledger (SHA-256, 64 lower-case hex digits): the leaf is SHA-256(0x00 || \"<ledger_position>\\n<ledger_hash>\")."
          }
        },
        "description": "The customer's receipt for this event (docs/ledger.md, \"Receipts\"): where the ledger recorded it. Keep it; once a signed checkpoint covers it (within a minute or so), `GET /v1/receipts/{event_id}/proof` on the dispatcher answers the checkpoint and an inclusion proof that the receiver kit's `verifyReceipt` checks offline against Settle's published public key. Sent by Settle for events recorded on its PostgreSQL ledger; absent before receipts existed."
      }
    }
  }
} as const;
