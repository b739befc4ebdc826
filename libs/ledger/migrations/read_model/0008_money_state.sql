-- The money after settlement (docs/state-machine.md, "The money after settlement"): refunds,
-- reversals and disputes recorded on a transaction's stream after its outcome give the payment a
-- money state of its own beside its state, which never changes. `money_revision` is the revision
-- of the money fact reflected (the state's own `ledger_revision` stays the outcome's), so replays
-- and redeliveries never move the money state backwards. The console's view gains the columns at
-- its end.

-- Up Migration

ALTER TABLE read_model.transaction_status
  ADD COLUMN IF NOT EXISTS money_state text NOT NULL DEFAULT 'none'
    CHECK (money_state IN ('none', 'partially_refunded', 'refunded', 'reversed', 'disputed', 'charged_back')),
  ADD COLUMN IF NOT EXISTS returned_minor bigint NOT NULL DEFAULT 0 CHECK (returned_minor >= 0),
  ADD COLUMN IF NOT EXISTS money_revision bigint NOT NULL DEFAULT -1;

CREATE OR REPLACE VIEW read_model.console_transactions AS
  SELECT reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, updated_at,
         money_state, returned_minor
    FROM read_model.transaction_status;
