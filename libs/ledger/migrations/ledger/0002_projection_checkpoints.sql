-- The checkpoints of the projections that follow an event store's $all into PostgreSQL (the
-- read models and the outbox, when LEDGER_STORE=kurrentdb): the last global position each
-- projection committed, moved in the same transaction as what it projected (docs/ledger.md,
-- "One port, two stores"). Unused, and empty, when the ledger is on PostgreSQL.

-- Up Migration

CREATE TABLE IF NOT EXISTS ledger.projection_checkpoints (
  name text PRIMARY KEY,
  position bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
