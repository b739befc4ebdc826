-- Schema `verifier`, owned by the verifier: its outbox of consensus results, the state of each
-- transaction as the decider folded it, and the inbox of processed message ids (a redelivered
-- trigger never queries the provider twice).
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS verifier;

CREATE TABLE IF NOT EXISTS verifier.outbox (
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
                   WHERE table_schema = 'verifier' AND table_name = 'outbox' AND column_name = 'published_at') THEN
         DELETE FROM verifier.outbox WHERE published_at IS NOT NULL;
         ALTER TABLE verifier.outbox DROP COLUMN published_at;
       END IF;
     END $$;

CREATE TABLE IF NOT EXISTS verifier.transactions (
     reference text PRIMARY KEY,
     provider text NOT NULL,
     amount_minor bigint NOT NULL,
     currency char(3) NOT NULL,
     user_id text NOT NULL,
     customer_email text,
     customer_phone text,
     entitlement text NOT NULL,
     correlation_id text NOT NULL,
     status text NOT NULL,
     entitlement_status text NOT NULL,
     completed_at bigint,
     outcomes integer NOT NULL DEFAULT 0,
     updated_at timestamptz NOT NULL DEFAULT now()
   );

ALTER TABLE verifier.transactions ADD COLUMN IF NOT EXISTS access_period text;

CREATE TABLE IF NOT EXISTS verifier.inbox (
     event_id uuid PRIMARY KEY,
     processed_at timestamptz NOT NULL DEFAULT now()
   );
