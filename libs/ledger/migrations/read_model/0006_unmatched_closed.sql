-- An operator may close an unmatched payment with a reason (docs/unmatched-payments.md):
-- `UnmatchedPaymentClosed` makes it `closed`, with when, why and by whom. The console's view
-- gains the columns at its end.

-- Up Migration

ALTER TABLE read_model.unmatched_payments DROP CONSTRAINT IF EXISTS unmatched_payments_status_check;
ALTER TABLE read_model.unmatched_payments ADD CONSTRAINT unmatched_payments_status_check CHECK (status IN ('open', 'matched', 'closed'));
ALTER TABLE read_model.unmatched_payments
  ADD COLUMN IF NOT EXISTS closed_at timestamptz,
  ADD COLUMN IF NOT EXISTS close_reason text,
  ADD COLUMN IF NOT EXISTS closed_by text;

CREATE OR REPLACE VIEW read_model.console_unmatched_payments AS
  SELECT reference, provider, status, amount_minor, currency, customer_email, customer_phone, terms_verified,
         provider_status, provider_transaction_id, verified_at, matched_at, closed_at, close_reason, closed_by
    FROM read_model.unmatched_payments;
