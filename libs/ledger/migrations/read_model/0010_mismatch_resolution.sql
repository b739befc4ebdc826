-- Resolving a State Mismatch (docs/state-machine.md, "Resolving a State Mismatch"): an operator's
-- resolution recorded on the transaction's stream after its outcome gives the payment a
-- `resolution` beside its state, which stays `STATE_MISMATCH`: `accepted_as_paid` (two people
-- accepted it; its entitlement is granted), `refund_due` (open until the provider shows the money
-- returned) or `refunded` (closed by that refund). `resolution_revision` is the revision of the
-- resolution fact reflected, so replays never move it backwards. The console's view gains the
-- column at its end.

-- Up Migration

ALTER TABLE read_model.transaction_status
  ADD COLUMN IF NOT EXISTS resolution text CHECK (resolution IN ('accepted_as_paid', 'refund_due', 'refunded')),
  ADD COLUMN IF NOT EXISTS resolution_revision bigint NOT NULL DEFAULT -1;

CREATE OR REPLACE VIEW read_model.console_transactions AS
  SELECT reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, updated_at,
         money_state, returned_minor, resolution
    FROM read_model.transaction_status;
