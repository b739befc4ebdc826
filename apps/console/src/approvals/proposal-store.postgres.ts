import { literalOf, type ApprovalActor, type ProposalState } from '@settle/domain';
import type { Pool } from '@settle/platform';
import { CONSOLE_ROLES } from '../auth/roles.js';
import type { ProposalStore, StoredProposal } from './proposal-store.port.js';

interface Row {
  proposal_id: string;
  action: string;
  target_kind: string;
  target_id: string;
  parameters: Record<string, unknown>;
  proposer_email: string;
  proposer_role: string;
  proposed_at: Date;
  expires_at: Date;
  status: string;
  decided_by_email: string | null;
  decided_by_role: string | null;
  decided_at: Date | null;
  reason: string | null;
  version: number;
}

const STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
const COLUMNS = `proposal_id, action, target_kind, target_id, parameters, proposer_email, proposer_role, proposed_at, expires_at,
                 status, decided_by_email, decided_by_role, decided_at, reason, version`;

/** The {@link ProposalStore} in the console's schema (`console.proposals`, migration console/0005). */
export class PostgresProposalStore implements ProposalStore {
  constructor(private readonly pool: Pool) {}

  async get(proposalId: string): Promise<StoredProposal | null> {
    if (!/^[0-9a-f-]{36}$/i.test(proposalId)) return null;
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM console.proposals WHERE proposal_id = $1`, [proposalId]);
    return rows[0] ? storedOf(rows[0]) : null;
  }

  async insert(proposal: StoredProposal): Promise<boolean> {
    const result = await this.pool.query(
      `INSERT INTO console.proposals (${COLUMNS}) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT DO NOTHING`,
      valuesOf(proposal),
    );
    return (result.rowCount ?? 0) === 1;
  }

  async save(proposal: StoredProposal, previousVersion: number): Promise<boolean> {
    const { state, decidedAt, reason, version } = proposal;
    const result = await this.pool.query(
      `UPDATE console.proposals
          SET status = $2, decided_by_email = $3, decided_by_role = $4, decided_at = $5, reason = $6, version = $7
        WHERE proposal_id = $1 AND version = $8`,
      [
        state.terms.proposalId,
        state.status,
        state.decidedBy?.email ?? null,
        state.decidedBy?.role ?? null,
        decidedAt === null ? null : new Date(decidedAt),
        reason,
        version,
        previousVersion,
      ],
    );
    return (result.rowCount ?? 0) === 1;
  }

  async listPending(limit: number): Promise<StoredProposal[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM console.proposals WHERE status = 'pending' ORDER BY proposed_at, proposal_id LIMIT $1`,
      [limit],
    );
    return rows.map(storedOf);
  }
}

function valuesOf({ state, decidedAt, reason, version }: StoredProposal): unknown[] {
  const t = state.terms;
  return [
    t.proposalId,
    t.action,
    t.target.kind,
    t.target.id,
    JSON.stringify(t.parameters),
    t.proposer.email,
    t.proposer.role,
    new Date(t.proposedAt),
    new Date(t.expiresAt),
    state.status,
    state.decidedBy?.email ?? null,
    state.decidedBy?.role ?? null,
    decidedAt === null ? null : new Date(decidedAt),
    reason,
    version,
  ];
}

function actorOf(email: string, role: string): ApprovalActor {
  return { email, role: literalOf(CONSOLE_ROLES, role, 'console role') };
}

function storedOf(row: Row): StoredProposal {
  const state: Extract<ProposalState, { terms: unknown }> = {
    status: literalOf(STATUSES, row.status, 'proposal status'),
    terms: {
      proposalId: row.proposal_id,
      action: row.action,
      target: { kind: row.target_kind, id: row.target_id },
      parameters: row.parameters,
      proposer: actorOf(row.proposer_email, row.proposer_role),
      proposedAt: row.proposed_at.getTime(),
      expiresAt: row.expires_at.getTime(),
    },
    decidedBy: row.decided_by_email && row.decided_by_role ? actorOf(row.decided_by_email, row.decided_by_role) : null,
  };
  return { state, decidedAt: row.decided_at?.getTime() ?? null, reason: row.reason, version: row.version };
}
