-- An operator may close an unmatched payment with a reason (refunded outside Settle, a test
-- payment, not ours; docs/unmatched-payments.md): status `closed`.

-- Up Migration

ALTER TABLE verifier.unmatched_payments DROP CONSTRAINT IF EXISTS unmatched_payments_status_check;
ALTER TABLE verifier.unmatched_payments
  ADD CONSTRAINT unmatched_payments_status_check CHECK (status IN ('candidate', 'recorded', 'declined', 'matched', 'closed'));
