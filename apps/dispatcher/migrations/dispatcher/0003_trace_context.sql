-- The W3C trace context (traceparent, tracestate) of the work that wrote each outbox row: an HTTP
-- request's span, or the Kafka message being handled. The relay publishes the row as a child of
-- it and puts that in the record's headers, so one checkout's path stays one trace across the
-- apps (docs/observability.md, "Traces"). Null while tracing is off. Adding a nullable column
-- without a default rewrites nothing: instant on a table of any size.
--
-- An entitlement event keeps the trace context of the message that brought it: its delivery
-- attempts, made later by the scheduler, continue that trace.

-- Up Migration

ALTER TABLE dispatcher.outbox ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text;

ALTER TABLE dispatcher.events ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text;
