-- What the sweeper publishes to the operations console (docs/console.md, "What the console
-- reads"): each watched transaction's next re-check and the re-checks made so far. The console
-- selects from this view only; a sweeper migration that changes a column it names fails in the
-- sweeper's own tests.

-- Up Migration

CREATE OR REPLACE VIEW sweeper.console_watches AS
  SELECT reference, due_at, checks
    FROM sweeper.watch_state;
