-- Schema `sweeper`, owned by the sweeper: the partition owners with their fencing epochs, one
-- watch (timer) per transaction, and its outbox of verification requests.
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS sweeper;

CREATE TABLE IF NOT EXISTS sweeper.partition_owners (
     partition integer PRIMARY KEY,
     owner text NOT NULL,
     epoch bigint NOT NULL,
     claimed_at timestamptz NOT NULL DEFAULT now()
   );

CREATE TABLE IF NOT EXISTS sweeper.watch_state (
     reference text PRIMARY KEY,
     partition integer NOT NULL,
     correlation_id text,
     status text NOT NULL,
     registered boolean NOT NULL,
     completed boolean NOT NULL,
     webhook_seen boolean NOT NULL,
     last_activity_at bigint NOT NULL,
     progress_at bigint,
     checks integer NOT NULL,
     last_check_at bigint,
     due_at bigint,
     updated_at timestamptz NOT NULL DEFAULT now()
   );

CREATE INDEX IF NOT EXISTS watch_state_due ON sweeper.watch_state (partition, due_at) WHERE due_at IS NOT NULL;

CREATE SCHEMA IF NOT EXISTS sweeper;

CREATE TABLE IF NOT EXISTS sweeper.outbox (
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
                   WHERE table_schema = 'sweeper' AND table_name = 'outbox' AND column_name = 'published_at') THEN
         DELETE FROM sweeper.outbox WHERE published_at IS NOT NULL;
         ALTER TABLE sweeper.outbox DROP COLUMN published_at;
       END IF;
     END $$;
