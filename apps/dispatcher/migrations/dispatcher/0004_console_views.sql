-- What the dispatcher publishes to the operations console (docs/console.md, "What the console
-- reads"): the entitlement events it received, their deliveries and attempts, and each endpoint's
-- URL (never its secret versions). The console selects from these views only; a dispatcher
-- migration that changes a column they name fails in the dispatcher's own tests.

-- Up Migration

CREATE OR REPLACE VIEW dispatcher.console_events AS
  SELECT event_id, event, reference, body, published_at
    FROM dispatcher.events;

CREATE OR REPLACE VIEW dispatcher.console_deliveries AS
  SELECT id, event_id, endpoint_id, state
    FROM dispatcher.deliveries;

CREATE OR REPLACE VIEW dispatcher.console_attempts AS
  SELECT delivery_id, attempt, started_at, latency_ms, status, outcome
    FROM dispatcher.attempts;

CREATE OR REPLACE VIEW dispatcher.console_endpoints AS
  SELECT id, url
    FROM dispatcher.endpoints;
