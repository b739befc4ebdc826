-- The console's ledger verification also checks the ledger against the signed checkpoints the
-- ledger projector publishes to the checkpoint sink (docs/console.md, "Ledger verification";
-- docs/ledger.md, "Verifying against the checkpoints"). Each row says whether its run checked
-- them, and if not why; what the last check established (how many checkpoints, the latest) is
-- carried by a run that could not check. The Merkle tree's edge is kept so that the next
-- incremental run continues from it rather than from the first event.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

-- NULL when the run checked the signed checkpoints; otherwise why it did not. Rows recorded
-- before this migration did not check them.
ALTER TABLE console.ledger_verifications
  ADD COLUMN IF NOT EXISTS checkpoint_note text DEFAULT 'verified before the console checked signed checkpoints';
ALTER TABLE console.ledger_verifications ALTER COLUMN checkpoint_note DROP DEFAULT;

ALTER TABLE console.ledger_verifications
  -- Signed checkpoints the events up to the kept tree edge agree with (since the tree was last
  -- computed from the first event).
  ADD COLUMN IF NOT EXISTS checkpoints_checked integer NOT NULL DEFAULT 0,
  -- The largest of them: it covers positions 1 to its size, signed at its time.
  ADD COLUMN IF NOT EXISTS latest_checkpoint_size bigint,
  ADD COLUMN IF NOT EXISTS latest_checkpoint_at timestamptz,
  -- Whose keys were trusted: LEDGER_CHECKPOINT_KEYS, or the sink's keys/ folder.
  ADD COLUMN IF NOT EXISTS checkpoint_keys_from text,
  -- The Merkle tree's edge after the last event checked: {"size": n, "nodes": [{"height", "hash"}]}.
  ADD COLUMN IF NOT EXISTS checkpoint_frontier jsonb;
