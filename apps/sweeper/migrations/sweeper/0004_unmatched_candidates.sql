-- Unmatched payment candidates (docs/unmatched-payments.md): a correctly signed webhook for a
-- reference with no checkout arms its watch; the verifier's final answer about it (recorded as an
-- unmatched payment, or declined) ends its checks until a checkout is registered. A constant
-- default is stored in the catalogue (PostgreSQL 11 and later): instant on a table of any size.

-- Up Migration

ALTER TABLE sweeper.watch_state ADD COLUMN IF NOT EXISTS unmatched_resolved boolean NOT NULL DEFAULT false;
