-- An operator may close an unmatched payment with a reason (refunded outside Settle, a test
-- payment, not ours; docs/unmatched-payments.md): status `closed`. A candidate the provider does
-- not know after the grace period ends as `not_found`.

-- Up Migration

ALTER TABLE verifier.unmatched_payments DROP CONSTRAINT IF EXISTS unmatched_payments_status_check;
ALTER TABLE verifier.unmatched_payments
  ADD CONSTRAINT unmatched_payments_status_check CHECK (status IN ('candidate', 'recorded', 'declined', 'not_found', 'matched', 'closed'));
