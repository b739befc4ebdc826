-- The operations console's filters and search (docs/console.md, docs/benchmarks.md, console):
-- a page of one state or entitlement status, newest first, is a range of its own index instead
-- of a scan of the newest rows for the few that match (a rare state, such as manual review, at a
-- million transactions); a reference prefix is a range of a byte-ordered index.

-- Up Migration

CREATE INDEX IF NOT EXISTS transaction_status_state_updated_at
  ON read_model.transaction_status (state, updated_at DESC, reference DESC);
CREATE INDEX IF NOT EXISTS transaction_status_entitlement_updated_at
  ON read_model.transaction_status (entitlement_status, updated_at DESC, reference DESC);
CREATE INDEX IF NOT EXISTS transaction_status_reference_bytes
  ON read_model.transaction_status (reference COLLATE "C");
