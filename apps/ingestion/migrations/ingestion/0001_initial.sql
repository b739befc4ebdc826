-- Schema `ingestion`, owned by the ingestion app: its outbox, the checkout registrations (the
-- terms each reference was registered with, for idempotent retries and 409 conflicts) and the
-- webhook inbox (de-duplication by the provider's event identity).
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS ingestion;

CREATE TABLE IF NOT EXISTS ingestion.outbox (
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
                   WHERE table_schema = 'ingestion' AND table_name = 'outbox' AND column_name = 'published_at') THEN
         DELETE FROM ingestion.outbox WHERE published_at IS NOT NULL;
         ALTER TABLE ingestion.outbox DROP COLUMN published_at;
       END IF;
     END $$;

CREATE TABLE IF NOT EXISTS ingestion.checkouts (
     reference text PRIMARY KEY,
     provider text NOT NULL,
     amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
     currency char(3) NOT NULL,
     user_id text NOT NULL,
     customer_email text,
     customer_phone text,
     entitlement text NOT NULL,
     request_sha256 text NOT NULL,
     correlation_id text NOT NULL,
     registered_at timestamptz NOT NULL,
     completed_at timestamptz
   );

ALTER TABLE ingestion.checkouts ADD COLUMN IF NOT EXISTS access_period text;

CREATE TABLE IF NOT EXISTS ingestion.webhook_inbox (
     provider text NOT NULL,
     dedupe_key text NOT NULL,
     reference text,
     signature_valid boolean NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (provider, dedupe_key)
   );
