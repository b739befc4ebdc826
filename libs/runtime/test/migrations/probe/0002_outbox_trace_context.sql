-- The outbox's trace context columns, as every app's outbox has them since (outboxDdl).

-- Up Migration

ALTER TABLE probe.outbox ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text;
