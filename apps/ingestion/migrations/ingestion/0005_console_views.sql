-- What ingestion publishes to the operations console (docs/console.md, "What the console reads"):
-- the console selects from these views only, never from ingestion's tables. A later migration of
-- ingestion that renames or drops a column the view names fails here, in ingestion's own tests,
-- instead of breaking the console in production; the view is then re-created with what the
-- console needs, in the same change. A simple view: PostgreSQL plans through it onto the table,
-- so the search indexes of 0002 serve the console as before.

-- Up Migration

CREATE OR REPLACE VIEW ingestion.console_checkouts AS
  SELECT reference, user_id, customer_email, customer_phone, entitlement, access_period
    FROM ingestion.checkouts;
