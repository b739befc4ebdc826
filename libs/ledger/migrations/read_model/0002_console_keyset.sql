-- The console's transaction list (docs/console.md): newest first, keyset pages over
-- (updated_at, reference). This index lets each page be an index range scan instead of a sort
-- of the whole table. The projector owns `read_model`, so the index is its migration.

-- Up Migration

CREATE INDEX IF NOT EXISTS transaction_status_updated_at_reference
  ON read_model.transaction_status (updated_at DESC, reference DESC);
