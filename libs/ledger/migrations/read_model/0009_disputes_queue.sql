-- The console's disputes queue (docs/console.md, "Queues"): settled payments whose money state is
-- `disputed`, newest first, read by keyset pages. Only the few payments whose money moved are in
-- this partial index.

-- Up Migration

CREATE INDEX IF NOT EXISTS transaction_status_money_state_updated_at
  ON read_model.transaction_status (money_state, updated_at DESC, reference DESC)
  WHERE money_state <> 'none';
