-- Erasure of a data subject (docs/privacy.md, "Erasure"): `./settle privacy erase` and the
-- console's approved erase clear a registration's customer email and phone here and set
-- `customer_erased_at`. The customer check of a later verification (a refund, a reconciliation)
-- then records `erased` and passes: it was decided while the values were held.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

ALTER TABLE verifier.transactions ADD COLUMN IF NOT EXISTS customer_erased_at timestamptz;
