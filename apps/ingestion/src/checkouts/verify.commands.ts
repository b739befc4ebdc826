import { randomUUID } from 'node:crypto';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideNewAttempt, isTerminal, literalOf, TRANSACTION_STATUSES, VERDICT_KINDS, type AttemptReason, type VerificationTrigger } from '@settle/domain';
import { ProblemError } from '@settle/platform';
import { CheckoutError } from './checkout.errors.js';
import { VerificationRequests } from '../verification/verification-requests.js';
import { CheckoutRepository } from './checkout.repository.js';

/** Longest wait for a fresh verification, milliseconds. */
export const MAX_VERIFY_WAIT_MS = 10_000;
/** Default wait for a fresh verification, milliseconds. */
export const DEFAULT_VERIFY_WAIT_MS = 5_000;

/** Parses `?wait_ms=`: an integer from 0 to {@link MAX_VERIFY_WAIT_MS}. @throws ProblemError 400 */
export function parseWaitMs(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_VERIFY_WAIT_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > MAX_VERIFY_WAIT_MS) {
    throw new ProblemError(400, 'REQUEST.VALIDATION_FAILED', 'Invalid wait_ms', `wait_ms is an integer from 0 to ${MAX_VERIFY_WAIT_MS}`);
  }
  return value;
}

/** The answer of a verification triggered over HTTP. */
export interface VerificationAnswer {
  reference: string;
  state: string;
  entitlement_status: string;
  /** `completed`: a fresh provider answer is reflected; `pending`: the wait ran out; `not_needed`: already terminal. */
  verification: 'completed' | 'pending' | 'not_needed';
  /** Verdict of the fresh verification, when it completed. */
  verdict: string | null;
  /**
   * `true` when this call published no request of its own (docs/webhooks.md, "Spoofed webhooks
   * and repeated verifications"): it shares the unanswered request of the same trigger (and
   * waits for that one's result), or it is answered from a provider answer younger than
   * `SETTLE_VERIFY_COALESCE_MS` (`verification: completed` with that answer's verdict).
   */
  coalesced: boolean;
}

/**
 * Verify a checkout now and wait (bounded) for the result: the customer opened the app after
 * an out-of-band payment (docs/spec.md, section 1, trigger 3), or a new attempt is being considered
 * (docs/spec.md, section 1, rule 3).
 */
export class VerifyCheckoutCommand extends Command<VerificationAnswer> {
  constructor(
    readonly reference: string,
    readonly trigger: VerificationTrigger,
    /** Milliseconds, at most {@link MAX_VERIFY_WAIT_MS}. */
    readonly waitMs: number,
    readonly now: Date,
  ) {
    super();
  }
}

/**
 * A terminal transaction answers at once from the read model (nothing can change it); any
 * other is verified through the same path as every automatic trigger (a
 * `VerificationRequested` on the transaction stream), and the answer waits for the result of
 * that very request, up to the wait. `/verify` and `/attempts` are coalesced per reference
 * (`VerificationRequests`): while the trigger's previous request is unanswered the call waits
 * for that one's result instead, and while a provider answer is younger than the window it
 * answers from it at once; a manual reconciliation is never coalesced.
 *
 * @throws CheckoutError `CHECKOUT.NOT_FOUND` (kind `not_found`).
 */
@CommandHandler(VerifyCheckoutCommand)
export class VerifyCheckoutHandler implements ICommandHandler<VerifyCheckoutCommand> {
  constructor(
    private readonly checkouts: CheckoutRepository,
    private readonly verifications: VerificationRequests,
  ) {}

  async execute({ reference, trigger, waitMs, now }: VerifyCheckoutCommand): Promise<VerificationAnswer> {
    const current = await this.checkouts.status(reference);
    if (current && isTerminal(literalOf(TRANSACTION_STATUSES, current.state, 'transaction status'))) {
      return {
        reference,
        state: current.state,
        entitlement_status: current.entitlementStatus,
        verification: 'not_needed',
        verdict: current.lastVerdict,
        coalesced: false,
      };
    }
    const outcome = await this.verifications.request({ reference, trigger, requestedBy: 'ingestion', requestId: randomUUID(), now });
    if (!outcome) throw new CheckoutError('CHECKOUT.NOT_FOUND', `No checkout is registered under reference ${reference}`);
    switch (outcome.kind) {
      case 'requested':
        return this.awaitAnswer(reference, outcome.requestId, waitMs, false);
      case 'coalesced':
        if (outcome.reason === 'pending') return this.awaitAnswer(reference, outcome.requestId, waitMs, true);
        return this.latestAnswer(reference);
      case 'duplicate':
        // Only a rejected webhook's body can be a duplicate; answered like a recent answer.
        return this.latestAnswer(reference);
    }
  }

  /** Waits for the result of `requestId`, at most `waitMs` milliseconds. */
  private async awaitAnswer(reference: string, requestId: string, waitMs: number, coalesced: boolean): Promise<VerificationAnswer> {
    const result = await this.checkouts.awaitResult(reference, requestId, waitMs);
    if (result) {
      return {
        reference,
        state: result.state,
        entitlement_status: result.entitlementStatus,
        verification: 'completed',
        verdict: result.lastVerdict,
        coalesced,
      };
    }
    const latest = await this.checkouts.status(reference);
    return {
      reference,
      state: latest?.state ?? 'PENDING',
      entitlement_status: latest?.entitlementStatus ?? 'LOCKED',
      verification: 'pending',
      verdict: null,
      coalesced,
    };
  }

  /** The answer of the latest provider answer (younger than the window), without a new request. */
  private async latestAnswer(reference: string): Promise<VerificationAnswer> {
    const latest = await this.checkouts.status(reference);
    if (!latest) return { reference, state: 'PENDING', entitlement_status: 'LOCKED', verification: 'pending', verdict: null, coalesced: true };
    return {
      reference,
      state: latest.state,
      entitlement_status: latest.entitlementStatus,
      verification: 'completed',
      verdict: latest.lastVerdict,
      coalesced: true,
    };
  }
}

/** `POST /v1/checkouts/{reference}/attempts` answer. */
export interface AttemptAnswer extends VerificationAnswer {
  /** `true` or `false`, or `null` for "not yet known: ask again". */
  allowed: boolean | null;
  reason: AttemptReason;
}

/** Maps a verification answer to the new-attempt decision of the domain. */
export function attemptAnswer(answer: VerificationAnswer): AttemptAnswer {
  const verdict = answer.verification === 'pending' || answer.verdict === null ? null : literalOf(VERDICT_KINDS, answer.verdict, 'verdict');
  return { ...answer, ...decideNewAttempt(literalOf(TRANSACTION_STATUSES, answer.state, 'transaction status'), verdict) };
}
