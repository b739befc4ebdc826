-- Schema `dispatcher`, owned by the dispatcher (docs/delivery.md): its outbox of dead-letter
-- records, the customer's endpoints, every entitlement event received (the inbox), one delivery
-- per (event, endpoint) and every attempt.
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS dispatcher;

CREATE TABLE IF NOT EXISTS dispatcher.outbox (
       id bigserial PRIMARY KEY,
       topic text NOT NULL,
       message_key text NOT NULL,
       event_type text NOT NULL,
       payload jsonb NOT NULL,
       correlation_id text NOT NULL,
       causation_id text,
       created_at timestamptz NOT NULL DEFAULT now()
     );

DO $$ BEGIN
       IF EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'dispatcher' AND table_name = 'outbox' AND column_name = 'published_at') THEN
         DELETE FROM dispatcher.outbox WHERE published_at IS NOT NULL;
         ALTER TABLE dispatcher.outbox DROP COLUMN published_at;
       END IF;
     END $$;

CREATE TABLE IF NOT EXISTS dispatcher.endpoints (
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
   );

CREATE TABLE IF NOT EXISTS dispatcher.events (
     event_id uuid PRIMARY KEY,
     event text NOT NULL,
     user_id text NOT NULL,
     entitlement text NOT NULL,
     reference text NOT NULL,
     correlation_id text NOT NULL,
     body text NOT NULL,
     published_at timestamptz NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now()
   );

CREATE TABLE IF NOT EXISTS dispatcher.deliveries (
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
   ) WITH (fillfactor = 80);

CREATE INDEX IF NOT EXISTS deliveries_due ON dispatcher.deliveries (endpoint_id, next_attempt_at) WHERE state = 'pending';

CREATE INDEX IF NOT EXISTS deliveries_failed ON dispatcher.deliveries (endpoint_id, id) WHERE state = 'failed';

CREATE TABLE IF NOT EXISTS dispatcher.attempts (
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
   );
