-- Reconciliation (docs/reconciliation.md), projected from the ledger's `reconciliation_run-<run id>`
-- and `reconciliation-<reference>` streams like the other read models: rebuildable from the ledger
-- alone. One row per run (its latest record: started, progressed, completed or failed, with the
-- counts per class so far) and one row per exception (raised, then resolved). Amounts are minor
-- units. Ingestion's admin API and the console read them; keyset pages run on the indexes below,
-- newest first.

-- Up Migration

CREATE TABLE IF NOT EXISTS read_model.reconciliation_runs (
  run_id              text PRIMARY KEY,
  provider            text NOT NULL,
  kind                text NOT NULL,
  status              text NOT NULL CHECK (status IN ('started', 'progressed', 'completed', 'failed')),
  window_from         timestamptz NOT NULL,
  window_until        timestamptz NOT NULL,
  dry_run             boolean NOT NULL,
  started_by          text NOT NULL,
  pages               bigint NOT NULL,
  total_pages         bigint,
  listed              bigint NOT NULL,
  out_of_scope        bigint NOT NULL,
  too_recent          bigint NOT NULL,
  classes             jsonb NOT NULL,
  exceptions_raised   bigint NOT NULL,
  exceptions_resolved bigint NOT NULL,
  started_at          timestamptz NOT NULL,
  finished_at         timestamptz,
  error               text,
  ledger_revision     bigint NOT NULL
);

CREATE INDEX IF NOT EXISTS reconciliation_runs_keyset ON read_model.reconciliation_runs (started_at DESC, run_id DESC);

CREATE TABLE IF NOT EXISTS read_model.reconciliation_exceptions (
  exception_id            text PRIMARY KEY,
  reference               text NOT NULL,
  provider                text NOT NULL,
  class                   text NOT NULL,
  status                  text NOT NULL CHECK (status IN ('open', 'resolved')),
  evidence                jsonb NOT NULL,
  run_id                  text,
  provider_transaction_id text,
  provider_status         text,
  amount_minor            bigint,
  currency                text,
  raised_at               timestamptz NOT NULL,
  resolved_at             timestamptz,
  resolution              text,
  resolution_note         text,
  resolved_by             text,
  resolved_run_id         text,
  ledger_revision         bigint NOT NULL
);

CREATE INDEX IF NOT EXISTS reconciliation_exceptions_keyset ON read_model.reconciliation_exceptions (status, raised_at DESC, exception_id DESC);
CREATE INDEX IF NOT EXISTS reconciliation_exceptions_by_run ON read_model.reconciliation_exceptions (run_id);
CREATE INDEX IF NOT EXISTS reconciliation_exceptions_by_reference ON read_model.reconciliation_exceptions (reference);
