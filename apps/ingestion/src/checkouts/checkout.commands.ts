import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
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
    const view = await this.checkouts.view(result.record.reference);
    return { reference: result.record.reference, state: view?.state ?? 'PENDING', created: result.kind === 'registered' };
  }
}

/** @throws CheckoutError `CHECKOUT.NOT_FOUND` (kind `not_found`). */
@CommandHandler(CompleteCheckoutCommand)
export class CompleteCheckoutHandler implements ICommandHandler<CompleteCheckoutCommand> {
  constructor(private readonly checkouts: CheckoutRepository) {}

  async execute({ reference, now }: CompleteCheckoutCommand) {
    const record: CheckoutRecord | null = await this.checkouts.complete(reference, now);
    if (!record) throw new CheckoutError('CHECKOUT.NOT_FOUND', `No checkout is registered under reference ${reference}`);
    const view = await this.checkouts.view(reference);
    return { reference, state: view?.state ?? 'PENDING' };
  }
}
