import { parseBody } from '@settle/http';
import { readReadModel } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { z } from 'zod';
import type { ProposalAction, ProposalDecision } from '../approvals/proposal-action.js';
import { ConsoleError } from '../errors.js';
import { postToIngestionAdmin, type IngestionAdminOptions } from '../reconcile/ingestion-admin.js';

/**
 * Sends a State Mismatch's resolution to ingestion's admin API
 * (`POST /v1/admin/checkouts/{reference}/resolve-mismatch`, docs/state-machine.md, "Resolving a
 * State Mismatch") and reads its refusals as the console's.
 *
 * @throws ConsoleError `CONSOLE.TRANSACTION_NOT_FOUND` (404), `CONSOLE.NOT_STATE_MISMATCH`,
 *   `CONSOLE.MISMATCH_RESOLVED`, `CONSOLE.MISMATCH_MONEY_RETURNED` (409),
 *   `CONSOLE.INGESTION_UNAVAILABLE` (503), `CONSOLE.INGESTION_REJECTED` (500: the console's key or
 *   request refused).
 */
async function resolveAtIngestion(ingestion: IngestionAdminOptions, reference: string, body: Record<string, unknown>): Promise<void> {
  const answer = await postToIngestionAdmin(ingestion, `v1/admin/checkouts/${encodeURIComponent(reference)}/resolve-mismatch`, 'mismatch resolution', body);
  const code = typeof answer.body?.code === 'string' ? answer.body.code : null;
  if (answer.status === 404) throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', `No checkout has reference ${reference}`);
  if (code === 'MISMATCH.NOT_STATE_MISMATCH') throw new ConsoleError('CONSOLE.NOT_STATE_MISMATCH', `${reference} is not in State Mismatch`);
  if (code === 'MISMATCH.ALREADY_RESOLVED') throw new ConsoleError('CONSOLE.MISMATCH_RESOLVED', `The State Mismatch of ${reference} is resolved already`);
  if (code === 'MISMATCH.MONEY_RETURNED') throw new ConsoleError('CONSOLE.MISMATCH_MONEY_RETURNED', `Money of ${reference} went back to the payer`);
  if (code === 'MISMATCH.DISPUTE_OPEN') throw new ConsoleError('CONSOLE.MISMATCH_DISPUTE_OPEN', `A dispute of ${reference} is open`);
  if (answer.status !== 202) throw new ConsoleError('CONSOLE.INGESTION_REJECTED', `Ingestion answered the resolution with ${answer.status}`);
}

/**
 * Whether a transaction can be resolved now, as the read model shows it: in State Mismatch, not
 * resolved, and (to accept it) no money returned.
 *
 * @throws ConsoleError as {@link resolveAtIngestion}; ReadModelNotReadyError.
 */
async function checkResolvable(pool: Pool, reference: string, accepting: boolean): Promise<void> {
  const { rows } = await readReadModel(() =>
    pool.query<{ state: string; resolution: string | null; returned_minor: string; money_state: string }>(
      'SELECT state, resolution, returned_minor, money_state FROM read_model.console_transactions WHERE reference = $1',
      [reference],
    ),
  );
  const row = rows[0];
  if (!row) throw new ConsoleError('CONSOLE.TRANSACTION_NOT_FOUND', `No transaction has reference ${reference}`);
  if (row.state !== 'STATE_MISMATCH') throw new ConsoleError('CONSOLE.NOT_STATE_MISMATCH', `${reference} is ${row.state}, not in State Mismatch`);
  if (row.resolution !== null)
    throw new ConsoleError('CONSOLE.MISMATCH_RESOLVED', `The State Mismatch of ${reference} is resolved already (${row.resolution})`);
  if (accepting && Number(row.returned_minor) > 0) throw new ConsoleError('CONSOLE.MISMATCH_MONEY_RETURNED', `Money of ${reference} went back to the payer`);
  if (accepting && row.money_state === 'disputed') throw new ConsoleError('CONSOLE.MISMATCH_DISPUTE_OPEN', `A dispute of ${reference} is open`);
}

/** Why a State Mismatch is accepted as paid: the proposer's note, which the approver reads. */
export const acceptAsPaidTerms = z.object({ note: z.string().trim().min(1, 'say why it is accepted').max(500) }).strict();

/** See {@link acceptAsPaidTerms}. */
export type AcceptAsPaidTerms = z.infer<typeof acceptAsPaidTerms>;

/**
 * `state_mismatch.accept_as_paid`: honour a State Mismatch as paid (for example an underpayment
 * within a tolerance the merchant decides to accept), once a second admin approved
 * (docs/approvals.md). The ledger then records `SettledByOverride` naming both people and the
 * difference accepted, distinct from a settlement the four checks passed, and grants the
 * entitlement the checkout bought.
 */
export class StateMismatchAcceptAsPaid implements ProposalAction<AcceptAsPaidTerms> {
  readonly name = 'state_mismatch.accept_as_paid';
  readonly targetKind = 'transaction';

  constructor(
    private readonly pool: Pool,
    private readonly ingestion: IngestionAdminOptions,
  ) {}

  parse(parameters: unknown): AcceptAsPaidTerms {
    return parseBody(acceptAsPaidTerms, parameters);
  }

  /** @throws ConsoleError as {@link resolveAtIngestion}, checked on the read model; ReadModelNotReadyError. */
  check(reference: string): Promise<void> {
    return checkResolvable(this.pool, reference, true);
  }

  /** @throws ConsoleError as {@link resolveAtIngestion}. */
  async run(reference: string, terms: AcceptAsPaidTerms, decision: ProposalDecision): Promise<Record<string, unknown>> {
    await resolveAtIngestion(this.ingestion, reference, {
      resolution: 'accept_as_paid',
      proposal_id: decision.proposalId,
      proposed_by: decision.proposedBy,
      approved_by: decision.approvedBy,
      note: terms.note,
    });
    return { reference, resolution: 'accept_as_paid' };
  }
}

/**
 * Closes a State Mismatch as to be refunded (one admin; docs/state-machine.md, "Resolving a State
 * Mismatch"): the exception stays open until the provider shows the captured money returned, then
 * closes by itself. Settle refunds nothing: the merchant refunds from the provider's dashboard.
 */
export class MismatchRefundDueCloser {
  constructor(
    private readonly pool: Pool,
    private readonly ingestion: IngestionAdminOptions,
  ) {}

  /**
   * @param closedBy - the admin's e-mail, recorded in the ledger.
   * @throws ConsoleError as {@link resolveAtIngestion}; ReadModelNotReadyError.
   */
  async close(reference: string, request: { note: string | null; closedBy: string }): Promise<{ reference: string; status: 'closing' }> {
    await checkResolvable(this.pool, reference, false);
    await resolveAtIngestion(this.ingestion, reference, {
      resolution: 'refund_due',
      closed_by: request.closedBy,
      ...(request.note === null ? {} : { note: request.note }),
    });
    return { reference, status: 'closing' };
  }
}
