-- The audit view of the console (docs/console.md, "Audit") lists admin-action requests newest
-- first, across every `admin-...` stream: a partial index over their positions keeps a page a
-- short backward walk however long the ledger grows.

-- Up Migration

CREATE INDEX IF NOT EXISTS events_admin_action_requests ON ledger.events (position)
  WHERE event_type = 'AdminActionRequested';
