import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ReadModelNotReadyError } from '@settle/ledger';
import { CheckoutError } from './checkout.errors.js';
import type { RegisterCheckoutBody } from './checkout.request.js';
import { CheckoutRepository, type CheckoutRecord } from './checkout.repository.js';

/** Register a checkout session from an upstream checkout service. */
export class RegisterCheckoutCommand extends Command<{ reference: string; state: string; created: boolean }> {
  constructor(
    readonly body: RegisterCheckoutBody,
    /** Request time, injected so handlers stay clock-free in tests. */
    readonly now: Date,
  ) {
    super();
  }
}

/** The checkout finished on the client; the wait for the webhook starts. */
export class CompleteCheckoutCommand extends Command<{ reference: string; state: string }> {
  constructor(
    readonly reference: string,
    readonly now: Date,
  ) {
    super();
  }
}

/**
 * The state to answer after an intake command (registration, completion), which is committed
 * already: the read model's, or `PENDING` while it has no row or does not exist yet (the ledger
 * projector, which owns it, has not booted on this database: docs/postgres.md). Intake never
 * fails for want of a read model; only the status reads answer 503 `READ_MODEL.NOT_READY`.
 */
async function stateAfterIntake(checkouts: CheckoutRepository, reference: string): Promise<string> {
  try {
    return (await checkouts.view(reference))?.state ?? 'PENDING';
  } catch (error) {
    if (error instanceof ReadModelNotReadyError) return 'PENDING';
    throw error;
  }
}

/**
 * Registers once; the same terms again answer the same; other terms for a known reference
 * are a conflict.
 *
 * @throws CheckoutError `CHECKOUT.CONFLICT` (kind `conflict`).
 */
@CommandHandler(RegisterCheckoutCommand)
export class RegisterCheckoutHandler implements ICommandHandler<RegisterCheckoutCommand> {
  constructor(private readonly checkouts: CheckoutRepository) {}

  async execute({ body, now }: RegisterCheckoutCommand) {
    const result = await this.checkouts.register(body, now);
    if (result.kind === 'conflict') {
      throw new CheckoutError('CHECKOUT.CONFLICT', `Reference ${body.reference} is registered with other terms`);
    }
    return {
      reference: result.record.reference,
      state: await stateAfterIntake(this.checkouts, result.record.reference),
      created: result.kind === 'registered',
    };
  }
}

/** @throws CheckoutError `CHECKOUT.NOT_FOUND` (kind `not_found`). */
@CommandHandler(CompleteCheckoutCommand)
export class CompleteCheckoutHandler implements ICommandHandler<CompleteCheckoutCommand> {
  constructor(private readonly checkouts: CheckoutRepository) {}

  async execute({ reference, now }: CompleteCheckoutCommand) {
    const record: CheckoutRecord | null = await this.checkouts.complete(reference, now);
    if (!record) throw new CheckoutError('CHECKOUT.NOT_FOUND', `No checkout is registered under reference ${reference}`);
    return { reference, state: await stateAfterIntake(this.checkouts, reference) };
  }
}
