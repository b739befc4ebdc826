import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ReadModelNotReadyError } from '@settle/ledger';
import { CheckoutIntake } from './checkout-intake.js';
import { CheckoutRepository } from './checkout.repository.js';

/** Register a checkout session from an upstream checkout service (`POST /v1/checkouts`, an admin's match of an unmatched payment). */
export class RegisterCheckoutCommand extends Command<{ reference: string; state: string; created: boolean }> {
  constructor(
    /** The registration, unvalidated: the handler validates it (`validateRegistration`). */
    readonly input: unknown,
    /** Request time, injected so handlers stay clock-free in tests. */
    readonly now: Date,
    /** Who sent it: `api_key:<key id>` (see `apiKeyIdOf` of `@settle/http`). */
    readonly submittedBy: string,
  ) {
    super();
  }
}

/** The checkout finished on the client; the wait for the webhook starts. */
export class CompleteCheckoutCommand extends Command<{ reference: string; state: string }> {
  constructor(
    /** As the URL path gave it: the handler checks it. */
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
export async function stateAfterIntake(checkouts: CheckoutRepository, reference: string): Promise<string> {
  try {
    return (await checkouts.view(reference))?.state ?? 'PENDING';
  } catch (error) {
    if (error instanceof ReadModelNotReadyError) return 'PENDING';
    throw error;
  }
}

/**
 * The HTTP side of {@link CheckoutIntake.register}: one transaction per request, the relay
 * woken after it when a registration was enqueued.
 *
 * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED`; CheckoutError `CHECKOUT.CONFLICT` (kind `conflict`).
 */
@CommandHandler(RegisterCheckoutCommand)
export class RegisterCheckoutHandler implements ICommandHandler<RegisterCheckoutCommand> {
  constructor(
    private readonly intake: CheckoutIntake,
    private readonly checkouts: CheckoutRepository,
  ) {}

  async execute({ input, now, submittedBy }: RegisterCheckoutCommand) {
    const { created, record } = await this.checkouts.inTransaction(async (client) => {
      const registration = await this.intake.register(client, input, now, submittedBy);
      return { value: registration, enqueued: registration.created };
    });
    return { reference: record.reference, state: await stateAfterIntake(this.checkouts, record.reference), created };
  }
}

/**
 * The HTTP side of {@link CheckoutIntake.complete}: one transaction per request.
 *
 * @throws CheckoutError `CHECKOUT.NOT_FOUND` (kind `not_found`).
 */
@CommandHandler(CompleteCheckoutCommand)
export class CompleteCheckoutHandler implements ICommandHandler<CompleteCheckoutCommand> {
  constructor(
    private readonly intake: CheckoutIntake,
    private readonly checkouts: CheckoutRepository,
  ) {}

  async execute({ reference, now }: CompleteCheckoutCommand) {
    await this.checkouts.inTransaction(async (client) => {
      const completion = await this.intake.complete(client, reference, now);
      return { value: completion, enqueued: completion.completed };
    });
    return { reference, state: await stateAfterIntake(this.checkouts, reference) };
  }
}
