-- The console's own check of the ledger's hash chains (docs/console.md, "Ledger verification"):
-- one row per verification that checked events, started from the first event, or found a break;
-- a run that found nothing new moves its latest row's checked_at instead. The next run continues
-- from the latest row's verified position, after checking that the ledger still holds the global
-- hash recorded here for it.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE TABLE IF NOT EXISTS console.ledger_verifications (
  id bigserial PRIMARY KEY,
  -- 'full': from the first event; 'incremental': from from_position, the previous verified position.
  kind text NOT NULL CHECK (kind IN ('full', 'incremental')),
  from_position bigint NOT NULL,
  -- The last event that held, and the global hash after it.
  verified_position bigint NOT NULL,
  global_hash text NOT NULL,
  events_checked bigint NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  -- The latest run that confirmed this row (a run with nothing new to check).
  checked_at timestamptz NOT NULL,
  -- When the latest full verification that passed finished (carried from row to row).
  last_full_at timestamptz,
  -- The first break found, all NULL when the chains held.
  broken_position bigint,
  broken_stream_id text,
  broken_revision bigint,
  broken_reason text,
  broken_expected text,
  broken_found text
);
