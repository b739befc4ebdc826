-- Payments Settle was never told about (docs/unmatched-payments.md): one row per reference that
-- had a correctly signed webhook but no checkout. `candidate` waits for its grace period (an honest
-- registration racing its webhook wins); the provider's answer then makes it `recorded` (a cleared
-- payment: an unmatched payment, with what the provider confirmed) or `declined` (nothing paid); a
-- checkout registered later under the reference makes it `matched`, and the four checks run against
-- the provider's answer as for any checkout. Amounts are minor units; times are epoch ms.

-- Up Migration

CREATE TABLE IF NOT EXISTS verifier.unmatched_payments (
  reference               text PRIMARY KEY,
  provider                text NOT NULL,
  correlation_id          text NOT NULL,
  status                  text NOT NULL CHECK (status IN ('candidate', 'recorded', 'declined', 'matched')),
  first_seen_at           bigint NOT NULL,
  amount_minor            bigint,
  currency                text,
  customer_email          text,
  customer_phone          text,
  terms_verified          boolean NOT NULL DEFAULT false,
  provider_status         text,
  provider_transaction_id text,
  verified_at             bigint,
  matched_at              bigint,
  updated_at              timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS unmatched_payments_open ON verifier.unmatched_payments (first_seen_at) WHERE status = 'recorded';
