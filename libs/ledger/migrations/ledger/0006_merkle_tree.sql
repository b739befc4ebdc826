-- The Merkle tree over the global log (docs/ledger.md, "The Merkle tree over the global log"),
-- kept by a reader of ledger.events that follows the log by position, off the append path: it
-- never touches ledger.head, so appends never wait for it. Derived data: rebuilt from the events
-- (TRUNCATE both tables, then extend again), and only as trustworthy as the signed checkpoints
-- published outside the database that commit to its roots.

-- Up Migration

-- The root of each perfect subtree: 2^level leaves starting at leaf idx * 2^level (level 0: each
-- event's leaf hash, leaf i being the event at position i + 1). Any proof for any size reads
-- about 2 log2(size) of them.
CREATE TABLE IF NOT EXISTS ledger.merkle_nodes (
  level smallint NOT NULL CHECK (level >= 0),
  idx   bigint   NOT NULL CHECK (idx >= 0),
  hash  bytea    NOT NULL CHECK (octet_length(hash) = 32),
  PRIMARY KEY (level, idx)
);

-- How far the tree has read the log: its size (events), the right edge of the tree (the perfect
-- subtrees' roots, to extend it without reading the nodes) and its root at that size.
CREATE TABLE IF NOT EXISTS ledger.merkle_tree (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  size       bigint  NOT NULL CHECK (size >= 0),
  frontier   jsonb   NOT NULL,
  root       bytea   NOT NULL CHECK (octet_length(root) = 32),
  updated_at timestamptz NOT NULL
);

GRANT SELECT, INSERT ON ledger.merkle_nodes TO settle_ledger_writer;

GRANT SELECT, INSERT, UPDATE ON ledger.merkle_tree TO settle_ledger_writer;
