import { maskEmail, maskPhone } from '@settle/domain';
import { parseBody } from '@settle/http';
import { assertReasonNamesNoOne, normaliseSubject, type ErasureReport, type ErasureSubject } from '@settle/ledger';
import { z } from 'zod';
import type { ProposalAction, ProposalDecision, ProposalTerms, RevealPurpose } from '../approvals/proposal-action.js';
import type { ProposalStore } from '../approvals/proposal-store.port.js';
import { ConsoleError } from '../errors.js';
import { openSealed, requireVault, sealFor, UNAVAILABLE_VALUE, vaultMissing, type ConsoleSubjectKeys } from './sealed-values.js';

/** The field a proposal's subject is sealed under (`SubjectKey.seal('subject', '<kind>:<id>')`). */
export const SUBJECT_FIELD = 'subject';

/** The proposal action's name. */
export const PRIVACY_ERASE = 'privacy.erase';

/**
 * Whom to erase, as the proposer names them (docs/privacy.md, "Whose data, and what"): a
 * merchant's user by `user_id`, or a customer by email or E.164 phone.
 */
export const erasureSubject = z
  .object({
    kind: z.enum(['user', 'customer']).describe('`user` (a `user_id`) or `customer` (an email or a phone)'),
    id: z.string().trim().min(1, 'name the subject').max(320).describe('The `user_id`, or the customer’s email (any case) or phone (+ and country code)'),
  })
  .strict()
  .refine((s) => s.kind === 'user' || s.id.includes('@') || /^\+[0-9 ()-]{6,30}$/.test(s.id), {
    message: 'a customer is an email or an international phone number (+ and country code)',
    path: ['id'],
  });

/** Why a subject is erased: a ticket, the request's date; never the subject's identifier (it is recorded in the ledger). */
export const erasureTerms = z.object({ reason: z.string().trim().min(1, 'say why (a ticket, the request’s date)').max(500) }).strict();

/** See {@link erasureTerms}. */
export type ErasureTerms = z.infer<typeof erasureTerms>;

/** `POST /api/v1/privacy/erasures` body: the subject and the reason. */
export const erasureRequest = z.object({ subject: erasureSubject, reason: erasureTerms.shape.reason }).strict();

/**
 * The target id a subject is proposed on before it is sealed: `user:<user_id>` or
 * `customer:<email or phone>`, named as erasure looks it up (`normaliseSubject` of `@settle/ledger`,
 * the rule the verifier seals under).
 */
export function subjectTargetId(subject: ErasureSubject): string {
  const { kind, id } = normaliseSubject(subject);
  return `${kind}:${id}`;
}

/**
 * A subject's target id as a viewer is shown it: `customer:` with the email or phone masked
 * (`customer:c•••@example.com`, `customer:+254•••678`); `user:<id>` as it is (a pseudonym);
 * anything else `unavailable`.
 */
export function maskedTargetId(targetId: string): string {
  const subject = subjectOfTargetId(targetId);
  if (!subject) return UNAVAILABLE_VALUE;
  if (subject.kind === 'user') return targetId;
  return `customer:${subject.id.includes('@') ? maskEmail(subject.id) : maskPhone(subject.id)}`;
}

/** The subject of a target id of {@link subjectTargetId}, or `null` for any other text. */
export function subjectOfTargetId(targetId: string): ErasureSubject | null {
  const match = /^(user|customer):(.+)$/s.exec(targetId);
  return match ? { kind: match[1] as ErasureSubject['kind'], id: match[2]! } : null;
}

/** What erasing needs of `SubjectErasure` (`@settle/ledger`). */
export interface SubjectEraser {
  erase(subject: ErasureSubject, request: { requestedBy: string; approvedBy: string | null; reason: string }): Promise<ErasureReport>;
}

/**
 * `privacy.erase`: erase a data subject (GDPR article 17; docs/privacy.md, "Erasure") once a
 * second admin approved (docs/approvals.md), through `SubjectErasure`: the subject's keys are
 * destroyed, the plaintext copies cleared, and a `SubjectErased` fact recorded naming the
 * proposer and the approver.
 *
 * The subject never reaches the ledger or the console's tables in plaintext: the proposal's
 * target id (recorded by `proposal.create`) is `<kind>:<id>` sealed under the subject's own key
 * (field `subject`), so the erasure itself turns it to noise. It is opened to run, and in the
 * proposal's views (`erased` once done).
 */
export class PrivacyErase implements ProposalAction<ErasureTerms> {
  readonly name = PRIVACY_ERASE;
  readonly targetKind = 'subject';

  private readonly keys: ConsoleSubjectKeys | null;

  /**
   * @param vault - the privacy vault's keys and the erasure over them; `null` when the console
   *   has no privacy vault (every proposal is then refused, 503 `CONSOLE.PRIVACY_VAULT_MISSING`).
   * @param pending - the pending proposals, to refuse a second erasure of the same subject.
   */
  constructor(
    private readonly vault: { keys: ConsoleSubjectKeys; erasure: SubjectEraser } | null,
    private readonly pending: Pick<ProposalStore, 'listPending'>,
  ) {
    this.keys = vault?.keys ?? null;
  }

  parse(parameters: unknown): ErasureTerms {
    return parseBody(erasureTerms, parameters);
  }

  /**
   * Refuses a reason that names the subject (`assertReasonNamesNoOne` of `@settle/ledger`, the
   * rule `SubjectErasure` applies again when it runs), before anything is recorded, then seals
   * the subject under its own key (made now when it has none).
   *
   * @param targetId - `user:<id>` or `customer:<id>` ({@link subjectTargetId}).
   * @throws DomainError `PRIVACY.REASON_NAMES_SUBJECT` (400); ConsoleError
   *   `CONSOLE.PRIVACY_VAULT_MISSING` (503); Error for a target id that names no subject.
   */
  async protect(targetId: string, parameters: ErasureTerms): Promise<ProposalTerms> {
    const subject = subjectOfTargetId(targetId);
    if (!subject) throw new Error('an erasure is proposed on user:<id> or customer:<id>');
    assertReasonNamesNoOne(parameters.reason, [normaliseSubject(subject)]);
    const keys = requireVault(this.keys, 'propose an erasure');
    return { targetId: await sealFor(keys, subject, SUBJECT_FIELD, targetId), parameters };
  }

  /**
   * The subject opened (`run`, `view`), or for a viewer (`view-masked`) a customer masked
   * (`customer:c•••@example.com`) and a user as it is (`user:<id>`: a user id is the merchant's
   * pseudonym, docs/privacy.md).
   *
   * @throws as `openSealed` for `run`; never for a view.
   */
  async reveal(stored: ProposalTerms, purpose: RevealPurpose): Promise<ProposalTerms> {
    return { targetId: await openSealed(this.keys, SUBJECT_FIELD, stored.targetId, purpose, maskedTargetId), parameters: stored.parameters };
  }

  /**
   * Refuses a subject an erasure of which is waiting for approval already (their sealed targets
   * differ, so the store cannot tell).
   *
   * @param sealedTarget - the protected target id.
   * @throws ConsoleError `CONSOLE.PROPOSAL_PENDING` (409); as `openSealed` for `run`.
   */
  async check(sealedTarget: string): Promise<void> {
    const subject = await openSealed(this.keys, SUBJECT_FIELD, sealedTarget, 'run');
    for (const proposal of await this.pending.listPending(500)) {
      const { terms } = proposal.state;
      if (terms.action !== PRIVACY_ERASE || terms.target.id === sealedTarget) continue;
      if ((await openSealed(this.keys, SUBJECT_FIELD, terms.target.id, 'view')) === subject) {
        throw new ConsoleError('CONSOLE.PROPOSAL_PENDING', `An erasure of this subject is waiting for approval already (proposal ${terms.proposalId})`);
      }
    }
  }

  /**
   * Erases the subject, naming the proposer and the approver.
   *
   * @returns the erasure's id, the `SubjectErased` fact's ledger position and counts (no subject).
   * @throws ConsoleError `CONSOLE.PRIVACY_VAULT_MISSING` (503); the ledger's and the database's errors.
   */
  async run(subjectTarget: string, terms: ErasureTerms, decision: ProposalDecision): Promise<Record<string, unknown>> {
    const subject = subjectOfTargetId(subjectTarget);
    if (!subject) throw new Error('an erasure proposal names no subject');
    if (!this.vault) throw vaultMissing('erase a subject');
    const report = await this.vault.erasure.erase(subject, { requestedBy: decision.proposedBy, approvedBy: decision.approvedBy, reason: terms.reason });
    return {
      erasure_id: report.erasure_id,
      ledger_position: report.ledger_position,
      transactions: report.transaction_references.length,
      unmatched_payments: report.unmatched_references.length,
      destroyed_keys: report.destroyed_key_ids.length,
      // `erased` lists the destroyed keys first, then the tables cleared.
      rows_cleared: report.erased.reduce((sum, e) => sum + e.rows, 0) - report.destroyed_key_ids.length,
      remaining: report.remaining.length,
    };
  }
}
