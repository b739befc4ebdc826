-- A transaction's entitlement events by its reference: the operations console shows them, with
-- their deliveries and attempts, on the transaction's page (docs/console.md). Without this
-- index each page would scan every event the dispatcher ever received.

-- Up Migration

CREATE INDEX IF NOT EXISTS events_reference ON dispatcher.events (reference);
