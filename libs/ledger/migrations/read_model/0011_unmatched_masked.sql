-- Unmatched payments' payer email and phone, masked (docs/privacy.md, "Masked forms" and
-- "Crypto-shredding"): from this version the verifier seals `customer_email` and `customer_phone`
-- under the customer's subject key (`sealed:v1:<key id>:...`, kept here as they arrive) and
-- publishes their masked forms beside them (`c•••@example.com`, `+254•••678`), which
-- `UnmatchedPaymentRecorded` carries and the projection copies here. Readers show the masked
-- forms only, never a sealed value. Rows of events written before have none (null): readers mask
-- their plaintext themselves. The console's view gains the columns at its end.

-- Up Migration

ALTER TABLE read_model.unmatched_payments
  ADD COLUMN IF NOT EXISTS customer_email_masked text,
  ADD COLUMN IF NOT EXISTS customer_phone_masked text;

CREATE OR REPLACE VIEW read_model.console_unmatched_payments AS
  SELECT reference, provider, status, amount_minor, currency, customer_email, customer_phone, terms_verified,
         provider_status, provider_transaction_id, verified_at, matched_at, closed_at, close_reason, closed_by,
         customer_email_masked, customer_phone_masked
    FROM read_model.unmatched_payments;
