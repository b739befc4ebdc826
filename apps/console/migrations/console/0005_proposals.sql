-- Proposals of sensitive admin actions (maker-checker, docs/approvals.md): one row per proposal,
-- its state as the approval rules (libs/domain/src/approval/approval.ts) last left it. Every
-- command on it is also an admin action in the ledger (proposal.create, proposal.approve,
-- proposal.reject), with its actor: the ledger is the record, this table the console's working
-- state. `version` makes every change optimistic: two admins approving at once, one wins.

-- Up Migration

CREATE TABLE IF NOT EXISTS console.proposals (
  proposal_id     uuid PRIMARY KEY,
  action          text NOT NULL,
  target_kind     text NOT NULL,
  target_id       text NOT NULL,
  parameters      jsonb NOT NULL,
  proposer_email  text NOT NULL,
  proposer_role   text NOT NULL,
  proposed_at     timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  decided_by_email text,
  decided_by_role  text,
  decided_at      timestamptz,
  reason          text,
  version         integer NOT NULL
);

-- The pending list, oldest first; and at most one pending proposal per action and target.
CREATE INDEX IF NOT EXISTS proposals_pending ON console.proposals (proposed_at) WHERE status = 'pending';
CREATE UNIQUE INDEX IF NOT EXISTS proposals_one_pending_per_target ON console.proposals (action, target_kind, target_id) WHERE status = 'pending';
