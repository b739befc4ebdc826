import { z } from 'zod';
import {
  json,
  type CheckResult,
  type CreateRequest,
  type PaymentState,
  type ProviderName,
  type SandboxAnswer,
  type SandboxTransaction,
  TransactionBook,
} from './sandbox.core.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';

/** Outcome of a control-API create: the transaction, or why the body was refused. */
export type CreateOutcome = { ok: true; transaction: SandboxTransaction } | { ok: false; status: 400; body: unknown };

/**
 * One simulated provider: the shared behaviour model ({@link TransactionBook}) plus the
 * provider's own answer shapes, credential checks and webhooks, which subclasses supply.
 * Answer-building methods return {@link SandboxAnswer}s and never touch HTTP, so they are
 * testable without a server.
 */
export abstract class ProviderSimulator {
  abstract readonly name: ProviderName;
  /** How people write the provider's name, for messages. */
  abstract readonly label: string;
  protected abstract readonly createSchema: z.ZodType<CreateRequest>;
  readonly book: TransactionBook;

  /**
   * @param firstId - first numeric id handed out (providers' ids differ in size).
   * @param now - the clock (payment times, token expiry), replaceable in tests.
   */
  constructor(
    protected readonly notifier: Notifier,
    firstId: number,
    protected readonly now: () => number = Date.now,
  ) {
    this.book = new TransactionBook(firstId);
  }

  /** A reference for a create request that named none (providers that assign their own ids). */
  protected newReference(): string | null {
    return null;
  }

  /** Provider-side ids and times recorded with a new transaction. */
  protected newDetails(_tx: CreateRequest & { reference: string }): Record<string, string | number> | undefined {
    return undefined;
  }

  /**
   * The webhook for a charge that has just settled, or null when this provider sends none
   * for that state (or no URL is configured). Spoofing is the builder's job.
   */
  protected abstract notification(tx: SandboxTransaction, state: 'succeeded' | 'declined'): (() => OutgoingWebhook) | null;

  /** Body of a 502/504 the provider's gateway would answer. */
  protected abstract gatewayFailure(status: 502 | 504): unknown;

  /** `POST /_sandbox/<provider>/transactions`. Idempotent on the reference. */
  create(body: unknown): CreateOutcome {
    const parsed = this.createSchema.safeParse(body);
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    const reference = parsed.data.reference ?? this.newReference();
    if (reference === null) return { ok: false, status: 400, body: { error: 'invalid', message: 'reference is required' } };
    const existing = this.book.get(reference);
    if (existing) return { ok: true, transaction: existing };
    const input = { ...parsed.data, reference };
    return { ok: true, transaction: this.book.create(input, this.newDetails(input)) };
  }

  /** `POST /_sandbox/<provider>/transactions/:reference/pay`: settles and notifies as the knobs say. */
  pay(reference: string): SandboxTransaction | undefined {
    const tx = this.book.get(reference);
    if (!tx) return undefined;
    const state = this.book.pay(tx, new Date(this.now()));
    if (state === 'succeeded' || state === 'declined') this.notify(tx, state);
    return tx;
  }

  /**
   * One verify call on a known transaction: counts it, serves injected failures (their
   * answer built here), and sends the webhook of a payment that clears on this call.
   */
  protected check(tx: SandboxTransaction): { answer: SandboxAnswer } | { state: PaymentState } {
    const result: CheckResult = this.book.check(tx);
    if (result.kind === 'failure') {
      const status = result.mode === '502' ? 502 : 504;
      const answer: SandboxAnswer =
        result.mode === 'timeout' ? { kind: 'hang', after: { status: 504, body: this.gatewayFailure(504) } } : json(status, this.gatewayFailure(status));
      return { answer };
    }
    if (result.clearedNow) this.notify(tx, 'succeeded');
    return { state: result.state };
  }

  private notify(tx: SandboxTransaction, state: 'succeeded' | 'declined'): void {
    const build = this.notification(tx, state);
    if (build) this.notifier.dispatch(tx, this.name, build);
  }
}
