-- Reconciliation against the provider's books (docs/reconciliation.md). The verifier owns it: it
-- alone holds the providers' credentials, and its runs share the providers' retry and breaker
-- budget with verification.
--
-- `runs`: one row per run, with its durable cursor (the provider's opaque page cursor) and its
-- counts so far, updated in the same transaction as the page it records, so a run resumed after a
-- crash neither skips nor repeats a page. A run is claimed with a lease (`lease_until`, epoch ms)
-- so one verifier of the group runs it; an expired lease lets another resume it.
-- `schedule`: per provider, the end of the last incremental window and the last daily day.
-- `exceptions`: every exception raised, open or resolved; at most one open per (reference, class).
-- `transactions.settled_at`: when the verifier settled a payment (epoch ms), for duplicate charges.

-- Up Migration

CREATE TABLE IF NOT EXISTS verifier.reconciliation_runs (
  run_id            text PRIMARY KEY,
  provider          text NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('incremental', 'daily', 'on_demand')),
  window_from       bigint NOT NULL,
  window_until      bigint NOT NULL,
  dry_run           boolean NOT NULL DEFAULT false,
  started_by        text NOT NULL,
  correlation_id    text NOT NULL,
  causation_id      text NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  cursor            text,
  pages             bigint NOT NULL DEFAULT 0,
  total_pages       bigint,
  listed            bigint NOT NULL DEFAULT 0,
  counts            jsonb NOT NULL DEFAULT '{}'::jsonb,
  exceptions_raised bigint NOT NULL DEFAULT 0,
  exceptions_resolved bigint NOT NULL DEFAULT 0,
  error             text,
  lease_until       bigint,
  requested_at      bigint NOT NULL,
  started_at        bigint,
  finished_at       bigint,
  CHECK (window_from < window_until)
);

CREATE INDEX IF NOT EXISTS reconciliation_runs_runnable ON verifier.reconciliation_runs (requested_at) WHERE status IN ('pending', 'running');

CREATE TABLE IF NOT EXISTS verifier.reconciliation_schedule (
  provider             text PRIMARY KEY,
  incremental_until    bigint,
  daily_through        text
);

CREATE TABLE IF NOT EXISTS verifier.reconciliation_exceptions (
  exception_id      text PRIMARY KEY,
  provider          text NOT NULL,
  reference         text NOT NULL,
  class             text NOT NULL,
  status            text NOT NULL CHECK (status IN ('open', 'resolved')),
  raised_at         bigint NOT NULL,
  resolved_at       bigint,
  first_run_id      text,
  last_run_id       text
);

CREATE UNIQUE INDEX IF NOT EXISTS reconciliation_exceptions_one_open
  ON verifier.reconciliation_exceptions (reference, class) WHERE status = 'open';

ALTER TABLE verifier.transactions ADD COLUMN IF NOT EXISTS settled_at bigint;

CREATE INDEX IF NOT EXISTS transactions_settled_by_buyer
  ON verifier.transactions (user_id, entitlement, settled_at) WHERE settled_at IS NOT NULL;
