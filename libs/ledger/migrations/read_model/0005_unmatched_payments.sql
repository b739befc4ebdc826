-- Payments Settle was never told about (docs/unmatched-payments.md), projected from the ledger's
-- `unmatched-<reference>` streams like the other read models: rebuildable from the ledger alone.
-- `open` from `UnmatchedPaymentRecorded`, `matched` from `UnmatchedPaymentMatched`. Amounts are
-- minor units (null when the provider's answer carries none: M-Pesa, terms_verified false).
-- Ingestion's admin API and the console read it (the console through the view below); keyset
-- pages over the open ones run on the partial index, oldest first.

-- Up Migration

CREATE TABLE IF NOT EXISTS read_model.unmatched_payments (
  reference               text PRIMARY KEY,
  provider                text NOT NULL,
  status                  text NOT NULL CHECK (status IN ('open', 'matched')),
  amount_minor            bigint,
  currency                text,
  customer_email          text,
  customer_phone          text,
  terms_verified          boolean NOT NULL,
  provider_status         text,
  provider_transaction_id text,
  verified_at             timestamptz NOT NULL,
  matched_at              timestamptz,
  ledger_revision         bigint NOT NULL
);

CREATE INDEX IF NOT EXISTS unmatched_payments_keyset ON read_model.unmatched_payments (status, verified_at, reference);

CREATE OR REPLACE VIEW read_model.console_unmatched_payments AS
  SELECT reference, provider, status, amount_minor, currency, customer_email, customer_phone, terms_verified,
         provider_status, provider_transaction_id, verified_at, matched_at
    FROM read_model.unmatched_payments;
