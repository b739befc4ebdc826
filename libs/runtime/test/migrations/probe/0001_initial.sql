-- Schema `probe` of the worker runtime's integration test: an outbox and the events seen.

-- Up Migration

CREATE TABLE IF NOT EXISTS probe.outbox (
  id bigserial PRIMARY KEY,
  topic text NOT NULL,
  message_key text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  correlation_id text NOT NULL,
  causation_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS probe.seen (event_id uuid PRIMARY KEY, via text NOT NULL);
