-- The audit view's read model when the ledger is in KurrentDB (docs/console.md, "Audit"): the
-- console's AuditProjection follows the ledger's `admin-` streams (a catch-up subscription from
-- the checkpoint below) and keeps one row per admin action, its request and, once recorded, its
-- outcome. The row and the checkpoint move in one transaction, so a replay writes nothing twice.
-- Unused, and empty, when the ledger is on PostgreSQL: the audit view then reads the ledger's
-- own `ledger.console_events`.
-- Applied migrations are never edited: their checksum is recorded (docs/postgres.md).

-- Up Migration

CREATE TABLE IF NOT EXISTS console.admin_actions (
  -- Ledger position of the AdminActionRequested event: the audit view's order and cursor.
  position bigint PRIMARY KEY,
  action_id uuid NOT NULL,
  -- The ledger stream, `admin-<kind>-<id>`: the target filter and where the outcome is looked for.
  stream_id text NOT NULL,
  action text NOT NULL,
  actor_email text NOT NULL,
  actor_role text NOT NULL,
  target_kind text NOT NULL,
  target_id text NOT NULL,
  parameters jsonb NOT NULL,
  -- ISO 8601 UTC, as the event carries it (text: the view answers exactly what was recorded).
  requested_at text NOT NULL,
  -- All NULL until an AdminActionCompleted of the same action is projected.
  outcome text CHECK (outcome IN ('succeeded', 'failed')),
  error_code text,
  result jsonb,
  completed_at text
);

-- The outcome's update finds its request; the filters by actor and by target walk newest first.
CREATE INDEX IF NOT EXISTS admin_actions_stream_action ON console.admin_actions (stream_id, action_id);
CREATE INDEX IF NOT EXISTS admin_actions_actor_position ON console.admin_actions (actor_email, position DESC);
CREATE INDEX IF NOT EXISTS admin_actions_stream_position ON console.admin_actions (stream_id, position DESC);

-- The last ledger position each of the console's projections handled, moved with its rows.
CREATE TABLE IF NOT EXISTS console.projection_checkpoints (
  name text PRIMARY KEY,
  position bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
