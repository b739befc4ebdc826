import { outboxDdl } from '@settle/messaging';

/** Schema of the dispatcher's own vault: the signing secrets of customer endpoints, under its own master keys. */
export const ENDPOINT_VAULT_SCHEMA = 'endpoint_vault';

/**
 * Tables the dispatcher owns (schema `dispatcher`), docs/delivery.md:
 * - `endpoints`: the customer's endpoints (URL, subscribed event kinds, state, health, the
 *   version of the signing secret and, during a rotation, of the previous one with its expiry;
 *   the secrets themselves are in the `endpoint_vault` vault);
 * - `events`: every entitlement event received, with the exact JSON body delivered (the inbox:
 *   a redelivered Kafka record is recorded once);
 * - `deliveries`: "recorded": one row per (event, endpoint), its state (`pending`, `delivered`,
 *   `failed` once exhausted and dead-lettered, `cancelled` when its endpoint was deleted), when it
 *   is next due, and while an attempt is in flight the lease token of that attempt (its result
 *   is recorded only if the lease still holds);
 * - `attempts`: "delivered" or not: every attempt with its time, HTTP status, latency and a
 *   bounded, secret-free excerpt of the answer, numbered per delivery;
 * - `outbox`: dead-letter records.
 */
export const DISPATCHER_DDL: readonly string[] = [
  ...outboxDdl('dispatcher'),
  `CREATE TABLE IF NOT EXISTS dispatcher.endpoints (
     id uuid PRIMARY KEY,
     url text NOT NULL,
     description text,
     event_kinds text[] NOT NULL,
     enabled boolean NOT NULL DEFAULT true,
     disabled_reason text CHECK (disabled_reason IN ('admin', 'gone', 'failing')),
     disabled_at timestamptz,
     failing_since timestamptz,
     secret_version integer NOT NULL,
     previous_secret_version integer,
     previous_secret_expires_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     deleted_at timestamptz,
     secrets_removed_at timestamptz
   )`,
  `CREATE TABLE IF NOT EXISTS dispatcher.events (
     event_id uuid PRIMARY KEY,
     event text NOT NULL,
     user_id text NOT NULL,
     entitlement text NOT NULL,
     reference text NOT NULL,
     correlation_id text NOT NULL,
     body text NOT NULL,
     published_at timestamptz NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS dispatcher.deliveries (
     id bigserial PRIMARY KEY,
     event_id uuid NOT NULL REFERENCES dispatcher.events (event_id),
     endpoint_id uuid NOT NULL REFERENCES dispatcher.endpoints (id),
     state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
     attempts integer NOT NULL DEFAULT 0,
     lease_token uuid,
     round_failures integer NOT NULL DEFAULT 0,
     next_attempt_at timestamptz,
     first_attempt_at timestamptz,
     delivered_at timestamptz,
     last_status integer,
     last_error text,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (event_id, endpoint_id),
     -- A lease is held on a pending delivery only: every move out of 'pending' ends it. Results
     -- are matched on (id, lease_token) alone and rely on this.
     CONSTRAINT deliveries_lease_only_pending CHECK (lease_token IS NULL OR state = 'pending')
   ) WITH (fillfactor = 80)`,
  `CREATE INDEX IF NOT EXISTS deliveries_due ON dispatcher.deliveries (endpoint_id, next_attempt_at) WHERE state = 'pending'`,
  // Dead-lettered deliveries, for their listing and an endpoint's recovery: small, and no cost to
  // the rows on their way (each index is written for every delivery recorded).
  `CREATE INDEX IF NOT EXISTS deliveries_failed ON dispatcher.deliveries (endpoint_id, id) WHERE state = 'failed'`,
  `CREATE TABLE IF NOT EXISTS dispatcher.attempts (
     id bigserial PRIMARY KEY,
     delivery_id bigint NOT NULL REFERENCES dispatcher.deliveries (id),
     attempt integer NOT NULL,
     started_at timestamptz NOT NULL,
     latency_ms integer NOT NULL,
     status integer,
     outcome text NOT NULL CHECK (outcome IN ('delivered', 'gone', 'throttled', 'failed')),
     error text,
     response_excerpt text,
     next_attempt_at timestamptz,
     UNIQUE (delivery_id, attempt)
   )`,
];
