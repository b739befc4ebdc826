-- What the PostgreSQL ledger publishes to the operations console (docs/console.md, "What the
-- console reads"): its events, as appended, for the audit view and the manual review queue's
-- last event. The console selects from this view only; a ledger migration that changes a column
-- it names fails in the ledger's own tests. Read-only by construction: the ledger's triggers keep
-- the table append-only, and a view adds no way to write.

-- Up Migration

CREATE OR REPLACE VIEW ledger.console_events AS
  SELECT position, event_id, stream_id, revision, event_type, data, recorded_at
    FROM ledger.events;
