-- The W3C trace context (traceparent, tracestate) of the work that wrote each outbox row: an HTTP
-- request's span, or the Kafka message being handled. The relay publishes the row as a child of
-- it and puts that in the record's headers, so one checkout's path stays one trace across the
-- apps (docs/observability.md, "Traces"). Null while tracing is off. Adding a nullable column
-- without a default rewrites nothing: instant on a table of any size.
--
-- A watch keeps the trace context of the last message that touched its transaction: a request
-- the sweeper fires starts a new trace linked to it.

-- Up Migration

ALTER TABLE sweeper.outbox ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text;

ALTER TABLE sweeper.watch_state ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text;
