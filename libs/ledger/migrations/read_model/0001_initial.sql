-- Schema `read_model`, owned by the ledger projector (through @settle/ledger), which writes it;
-- ingestion only reads it (docs/postgres.md): transaction statuses, latest verifications and
-- entitlements.
--
-- The first migration is the DDL the app applied at every boot before versioned migrations,
-- idempotent (IF NOT EXISTS), so a database made by that DDL upgrades to it as a no-op.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE SCHEMA IF NOT EXISTS read_model;

CREATE TABLE IF NOT EXISTS read_model.transaction_status (
     reference text PRIMARY KEY,
     provider text NOT NULL,
     state text NOT NULL,
     entitlement_status text NOT NULL,
     amount_minor bigint NOT NULL,
     currency text NOT NULL,
     checks jsonb,
     last_verdict text,
     last_trigger text,
     ledger_revision bigint NOT NULL DEFAULT -1,
     updated_at timestamptz NOT NULL
   );

ALTER TABLE read_model.transaction_status DROP COLUMN IF EXISTS last_causation_id;

CREATE TABLE IF NOT EXISTS read_model.latest_verification (
     reference text PRIMARY KEY,
     verdict text NOT NULL,
     trigger text NOT NULL,
     causation_id text NOT NULL,
     state text NOT NULL,
     entitlement_status text NOT NULL,
     decided_at timestamptz NOT NULL
   );

CREATE TABLE IF NOT EXISTS read_model.entitlements (
     user_id text NOT NULL,
     entitlement text NOT NULL,
     expires_at timestamptz NOT NULL,
     grants integer NOT NULL,
     last_event_id uuid NOT NULL,
     last_event text NOT NULL,
     last_reference text NOT NULL,
     ledger_revision bigint NOT NULL,
     updated_at timestamptz NOT NULL,
     PRIMARY KEY (user_id, entitlement)
   );
