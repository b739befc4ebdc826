-- Lookups of checkouts by who paid: the operations console's search matches a user id, an email
-- (case-insensitive) or a phone exactly (docs/console.md). Without these, a search scans every
-- checkout; with them it is a few index probes at a million checkouts (docs/benchmarks.md,
-- console).

-- Up Migration

CREATE INDEX IF NOT EXISTS checkouts_user_id ON ingestion.checkouts (user_id);
CREATE INDEX IF NOT EXISTS checkouts_customer_email_lower ON ingestion.checkouts (lower(customer_email));
CREATE INDEX IF NOT EXISTS checkouts_customer_phone ON ingestion.checkouts (customer_phone);
