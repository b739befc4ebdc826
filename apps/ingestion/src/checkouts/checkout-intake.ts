import { Injectable } from '@nestjs/common';
import { invalidCharacterProblem, parseBody, unstorableValueText } from '@settle/http';
import type { PoolClient } from '@settle/platform';
import { CheckoutError } from './checkout.errors.js';
import { pathReference, registerCheckoutBody, type RegisterCheckoutBody } from './checkout.request.js';
import { CheckoutRepository, type CheckoutRecord } from './checkout.repository.js';

/**
 * Checks a registration as `POST /v1/checkouts` and the `RegisterCheckout` command both do: the
 * one validation of a checkout's terms, whichever transport carried them. Text that cannot be
 * stored as sent (a NUL, a lone surrogate) is refused first, as the HTTP edge refuses it in a
 * body before any handler runs (docs/errors.md, `REQUEST.INVALID_CHARACTER`).
 *
 * @param input - the JSON body, or a command's fields as its twin body (`registrationBodyOf`).
 * @throws ProblemError 400 `REQUEST.INVALID_CHARACTER`; ProblemError 400
 *   `REQUEST.VALIDATION_FAILED`, with one entry per invalid field.
 */
export function validateRegistration(input: unknown): RegisterCheckoutBody {
  const unstorable = unstorableValueText(input);
  if (unstorable.length > 0) throw invalidCharacterProblem(unstorable);
  return parseBody(registerCheckoutBody, input);
}

/** A registration that went through: new (`created`), or the same terms again. */
export interface Registration {
  created: boolean;
  record: CheckoutRecord;
}

/** A completion that went through: `completed` is false when the checkout was completed before. */
export interface Completion {
  completed: boolean;
  record: CheckoutRecord;
}

/**
 * The checkout intake rules, behind both ways in (docs/api.md, "Two ways in"): the HTTP API runs
 * each command in a transaction of its own, the commands topic runs a whole batch in one. Every
 * refusal is an error whose problem details (`problemOf` of `@settle/http`) are the HTTP answer,
 * and the result record's `problem` on the results topic.
 */
@Injectable()
export class CheckoutIntake {
  constructor(private readonly checkouts: CheckoutRepository) {}

  /**
   * Registers once (docs/spec.md, section 1); the same terms again answer the same; other terms
   * for a known reference are a conflict (the domain's `sameCheckoutTerms`).
   *
   * @param input - the registration, unvalidated.
   * @param submittedBy - who sent it, stored with the row (`api_key:<key id>`, `kafka:<producer>`).
   * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED`; CheckoutError `CHECKOUT.CONFLICT`.
   */
  async register(client: PoolClient, input: unknown, now: Date, submittedBy: string): Promise<Registration> {
    const [outcome] = await this.registerAll(client, [{ input, submittedBy }], now);
    if (outcome instanceof Error) throw outcome;
    return outcome!;
  }

  /**
   * {@link register} for several registrations at once, in three statements whatever their
   * count (a batch of the commands topic): each is validated and decided exactly as alone, and
   * its refusal is returned in its place, not thrown.
   *
   * @param requests - their references must differ (the caller splits repeats into later calls).
   * @returns per request, in order, its registration or its refusal (ProblemError 400
   *   `REQUEST.VALIDATION_FAILED`, CheckoutError `CHECKOUT.CONFLICT`).
   * @throws database errors (nothing of the call is kept once the caller's transaction fails).
   */
  async registerAll(client: PoolClient, requests: ReadonlyArray<{ input: unknown; submittedBy: string }>, now: Date): Promise<Array<Registration | Error>> {
    const checked = requests.map(({ input, submittedBy }) => {
      try {
        return { body: validateRegistration(input), submittedBy };
      } catch (error) {
        return error as Error;
      }
    });
    const valid = checked.filter((c): c is { body: RegisterCheckoutBody; submittedBy: string } => !(c instanceof Error));
    const results = await this.checkouts.registerAllIn(client, valid, now);
    let next = 0;
    return checked.map((c) => {
      if (c instanceof Error) return c;
      const result = results[next++]!;
      if (result.kind === 'conflict') return new CheckoutError('CHECKOUT.CONFLICT', `Reference ${c.body.reference} is registered with other terms`);
      return { created: result.kind === 'registered', record: result.record };
    });
  }

  /**
   * The client finished paying: marks the checkout completed once (the sweeper's wait for the
   * webhook starts); again, nothing changes.
   *
   * @throws CheckoutError `CHECKOUT.NOT_FOUND` for a malformed or unknown reference.
   */
  async complete(client: PoolClient, reference: string, now: Date): Promise<Completion> {
    const { record, completed } = await this.checkouts.completeIn(client, pathReference(reference), now);
    if (!record) throw new CheckoutError('CHECKOUT.NOT_FOUND', `No checkout is registered under reference ${reference}`);
    return { completed, record };
  }
}
