import { customerSubjectId, maskEmail, maskPhone } from '@settle/domain';
import { parseBody } from '@settle/http';
import { readReadModel } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { z } from 'zod';
import { ConsoleError } from '../errors.js';
import { postToIngestionAdmin, type IngestionAdminOptions } from '../reconcile/ingestion-admin.js';
import type { ProposalAction, ProposalTerms, RevealPurpose } from '../approvals/proposal-action.js';
import { openSealed, requireVault, sealFor, type ConsoleSubjectKeys } from '../privacy/sealed-values.js';

/**
 * The checkout terms an operator proposes for an unmatched payment (docs/unmatched-payments.md),
 * from their own source (the order system, the price list), never from the provider's answer: the
 * console's form is not pre-filled. Checked here so that an approver never sees terms ingestion
 * would refuse at sight; ingestion checks them again (`POST /v1/admin/unmatched-payments/{reference}/match`,
 * the registration's own validation) when the approved match runs.
 */
export const matchTerms = z
  .object({
    amount: z.number().int('amount must be an integer in minor units').positive('amount must be positive').describe('Minor units'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'currency must be an upper-case ISO 4217 code'),
    user_id: z.string().trim().min(1).max(200),
    customer: z
      .object({
        email: z.email().max(320).optional(),
        phone: z
          .string()
          .regex(/^\+[0-9 ()-]{6,30}$/, 'phone must be an international number (+ and country code)')
          .optional(),
      })
      .strict()
      .refine((c) => c.email !== undefined || c.phone !== undefined, 'customer needs an email or a phone'),
    entitlement: z.string().trim().min(1).max(200),
    access_period: z.string().regex(/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?$/, 'access_period must be an ISO 8601 duration such as P1M, P30D or P1Y'),
  })
  .strict();

/** See {@link matchTerms}. */
export type MatchTerms = z.infer<typeof matchTerms>;

/**
 * `unmatched_payment.match`: register a checkout under an open unmatched payment's reference with
 * the proposed terms, once a second admin approved (ingestion's
 * `POST /v1/admin/unmatched-payments/{reference}/match`, the registration path; the four checks
 * then run against the provider's answer, a mismatch ending in State Mismatch as usual).
 *
 * The customer's email and phone are sealed under the customer's subject key (its email's, else
 * its phone's; fields `email` and `phone`, the keys they sit under) before the proposal is
 * recorded in the ledger or stored (docs/privacy.md), and opened to run it and in its views.
 */
export class UnmatchedPaymentMatch implements ProposalAction<MatchTerms> {
  readonly name = 'unmatched_payment.match';
  readonly targetKind = 'unmatched_payment';

  /** @param keys - the privacy vault; `null` when the console has none (a match naming a customer is then refused). */
  constructor(
    private readonly pool: Pool,
    private readonly ingestion: IngestionAdminOptions,
    private readonly keys: ConsoleSubjectKeys | null = null,
  ) {}

  parse(parameters: unknown): MatchTerms {
    return parseBody(matchTerms, parameters);
  }

  /**
   * Seals the customer's email and phone under the customer's key (its email's when given, else its phone's).
   *
   * @throws ConsoleError `CONSOLE.PRIVACY_VAULT_MISSING` (503); the vault's and the database's errors.
   */
  async protect(reference: string, terms: MatchTerms): Promise<ProposalTerms> {
    const { email, phone } = terms.customer;
    if (email === undefined && phone === undefined) return { targetId: reference, parameters: terms };
    const keys = requireVault(this.keys, 'record a match naming a customer without its email or phone in plaintext');
    const subject = { kind: 'customer' as const, id: customerSubjectId({ email, phone })! };
    const customer = {
      ...(email === undefined ? {} : { email: await sealFor(keys, subject, 'email', email) }),
      ...(phone === undefined ? {} : { phone: await sealFor(keys, subject, 'phone', phone) }),
    };
    return { targetId: reference, parameters: { ...terms, customer } };
  }

  /**
   * The customer's email and phone opened (`run`, `view`), or masked for a viewer (`view-masked`:
   * `c•••@example.com`, `+254•••678`).
   *
   * @throws as `openSealed` for `run`; never for a view.
   */
  async reveal(stored: ProposalTerms, purpose: RevealPurpose): Promise<ProposalTerms> {
    const customer = stored.parameters.customer;
    if (typeof customer !== 'object' || customer === null) return stored;
    const opened: Record<string, unknown> = { ...(customer as Record<string, unknown>) };
    for (const [field, mask] of [
      ['email', maskEmail],
      ['phone', maskPhone],
    ] as const) {
      const value = opened[field];
      if (typeof value === 'string') opened[field] = await openSealed(this.keys, field, value, purpose, mask);
    }
    return { targetId: stored.targetId, parameters: { ...stored.parameters, customer: opened } };
  }

  /**
   * @throws ConsoleError `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND` (no such payment),
   *   `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN` (matched since); ReadModelNotReadyError.
   */
  async check(reference: string): Promise<void> {
    const { rows } = await readReadModel(() =>
      this.pool.query<{ status: string }>('SELECT status FROM read_model.console_unmatched_payments WHERE reference = $1', [reference]),
    );
    if (!rows[0]) throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND', `No unmatched payment has reference ${reference}`);
    if (rows[0].status !== 'open') throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN', `The unmatched payment ${reference} is ${rows[0].status}`);
  }

  /**
   * @throws ConsoleError `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND`, `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN`,
   *   `CONSOLE.MATCH_REFUSED` (ingestion refused the terms), `CONSOLE.INGESTION_UNAVAILABLE`,
   *   `CONSOLE.INGESTION_REJECTED` (the console's admin key refused).
   */
  async run(reference: string, terms: MatchTerms): Promise<Record<string, unknown>> {
    const answer = await postToIngestionAdmin(this.ingestion, `v1/admin/unmatched-payments/${encodeURIComponent(reference)}/match`, 'match request', terms);
    const code = typeof answer.body?.code === 'string' ? answer.body.code : null;
    if (answer.status === 404) throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND', `No unmatched payment has reference ${reference}`);
    if (answer.status === 409 && code === 'UNMATCHED_PAYMENT.NOT_OPEN') {
      throw new ConsoleError('CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN', `The unmatched payment ${reference} is not open any more`);
    }
    if (answer.status === 400 || answer.status === 409) {
      throw new ConsoleError('CONSOLE.MATCH_REFUSED', `Ingestion refused the match (${code ?? answer.status})`);
    }
    if (answer.status !== 202 || typeof answer.body?.state !== 'string') {
      throw new ConsoleError('CONSOLE.INGESTION_REJECTED', `Ingestion answered the match request with ${answer.status}`);
    }
    return { reference, state: answer.body.state };
  }
}
