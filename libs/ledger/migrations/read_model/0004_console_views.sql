-- What the ledger's read models publish to the operations console (docs/console.md, "What the
-- console reads"): each transaction's status and its latest verification. The console selects
-- from these views only; a read-model migration that changes a column they name fails in the
-- ledger's own tests. Simple views: PostgreSQL plans through them onto the tables, so the
-- console's keyset and filter indexes (0002, 0003) serve it as before.

-- Up Migration

CREATE OR REPLACE VIEW read_model.console_transactions AS
  SELECT reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, updated_at
    FROM read_model.transaction_status;

CREATE OR REPLACE VIEW read_model.console_latest_verifications AS
  SELECT reference, verdict, trigger
    FROM read_model.latest_verification;
