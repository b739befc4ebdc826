import { z } from 'zod';
import {
  behaviourSchema,
  json,
  type Behaviour,
  type CheckResult,
  type CreateRequest,
  type PaymentState,
  type ProviderName,
  type SandboxAnswer,
  type SandboxDispute,
  type SandboxRefund,
  type SandboxTransaction,
  TransactionBook,
} from './sandbox.core.js';
import type { Notifier, OutgoingWebhook } from './webhook-sender.js';
import {
  BULK_MOVEMENT_DELAY_MS,
  bulkSeedSchema,
  listFailuresSchema,
  outcomeDraw,
  type BulkOutcome,
  type BulkResult,
  type ListFailures,
} from './sandbox.list.js';
import type { TimeIndex } from './sandbox.core.js';

/** How a refund's or a dispute's notification is sent: as a signed webhook, not at all, or signed with a wrong secret. */
export type MovementWebhookMode = 'deliver' | 'drop' | 'spoof';

const movementWebhook = z.enum(['deliver', 'drop', 'spoof']).default('deliver');

/** Body of `POST /_sandbox/<provider>/transactions/:reference/refunds`. */
export const refundSchema = z
  .object({
    /** Minor units; everything left to refund when absent. */
    amount: z.number().int().positive().optional(),
    /** `pending` for a refund the provider has not sent yet (`POST .../refunds/:id` moves it on). */
    status: z.enum(['pending', 'succeeded']).default('succeeded'),
    webhook: movementWebhook,
  })
  .strict();

/** Body of `POST /_sandbox/<provider>/refunds/:id`. */
export const refundUpdateSchema = z.object({ status: z.enum(['succeeded', 'failed']), webhook: movementWebhook }).strict();

/** Body of `POST /_sandbox/<provider>/transactions/:reference/disputes`. */
export const disputeSchema = z
  .object({
    /** Minor units; the payment's amount when absent. */
    amount: z.number().int().positive().optional(),
    reason: z.string().min(1).max(64).default('fraudulent'),
    webhook: movementWebhook,
  })
  .strict();

/** Body of `POST /_sandbox/<provider>/disputes/:id/resolve`. */
export const disputeResolutionSchema = z.object({ outcome: z.enum(['won', 'lost']), webhook: movementWebhook }).strict();

/** Outcome of a control-API call on the lists (bulk seed, list failures, reversal): its answer, or why it was refused. */
export type ControlOutcome<T> = { ok: true; value: T } | { ok: false; status: 400 | 404 | 409; body: unknown };

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
    const input = { ...parsed.data, reference, createdAtMs: this.now() };
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

  /**
   * The book's index the provider's transaction list reads (docs/reconciliation.md, "Providers'
   * lists"): `created` where the provider creates its transaction when the checkout starts
   * (Paystack, Stripe), `paid` where it creates it when the customer pays (Flutterwave); `null`
   * for a provider with no list (M-Pesa).
   */
  protected listIndex(): TimeIndex | null {
    return null;
  }

  /** Whether the provider has a transaction list in this sandbox. */
  get lists(): boolean {
    return this.listIndex() !== null;
  }

  /** A bulk-seeded transaction's reference (`<prefix><n>`); a provider with its own id shape overrides it. */
  protected bulkReference(prefix: string, n: number): string {
    return `${prefix}${n}`;
  }

  /** Why a bulk seed's reference prefix does not fit the provider's ids, or null when it does. */
  protected bulkPrefixProblem(_prefix: string): string | null {
    return null;
  }

  private noList(): ControlOutcome<never> {
    return { ok: false, status: 404, body: { error: 'not found', message: `${this.label} has no transaction list in this sandbox` } };
  }

  /**
   * `POST /_sandbox/<provider>/transactions/bulk`: seeds many transactions at once, as history
   * (the body: `bulkSeedSchema`). A million take a few seconds; each is in the book's indexes, so
   * the list endpoints page through them by binary search. A `refunded` or `disputed` one gets its
   * refund or dispute the way the control API's `refund` and `openDispute` make them (the book's
   * own calls, an id in the provider's shape), with no notification.
   */
  bulk(body: unknown): ControlOutcome<BulkResult> {
    if (!this.lists) return this.noList();
    const parsed = bulkSeedSchema.safeParse(body);
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    const seed = parsed.data;
    const prefixProblem = this.bulkPrefixProblem(seed.reference_prefix);
    if (prefixProblem) return { ok: false, status: 400, body: { error: 'invalid', message: prefixProblem } };
    const fromMs = Date.parse(seed.from);
    const span = Date.parse(seed.until) - fromMs;
    const draw = outcomeDraw(seed.outcomes, seed.seed);
    // One behaviour per outcome, shared: knobs are read, never written (counters live on the transaction).
    const behaviours: Record<BulkOutcome, Behaviour> = {
      success: behaviourSchema.parse({ webhook: 'drop' }),
      declined: behaviourSchema.parse({ outcome: 'declined', webhook: 'drop' }),
      clearing: behaviourSchema.parse({ outcome: 'clearing_then_success', clearing_checks: 1, webhook: 'drop' }),
      unpaid: behaviourSchema.parse({ webhook: 'drop' }),
      reversed: behaviourSchema.parse({ webhook: 'drop' }),
      refunded: behaviourSchema.parse({ webhook: 'drop' }),
      disputed: behaviourSchema.parse({ webhook: 'drop' }),
    };
    // The reason the control API's dispute gives when none is named.
    const disputeReason = disputeSchema.parse({}).reason;
    let created = 0;
    let existing = 0;
    for (let n = 0; n < seed.count; n++) {
      const outcome = draw();
      const reference = this.bulkReference(seed.reference_prefix, n);
      if (this.book.has(reference)) {
        existing += 1;
        continue;
      }
      const at = fromMs + Math.floor((n * span) / seed.count);
      const input = {
        reference,
        amount: seed.amount,
        currency: seed.currency,
        email: seed.email,
        phone: seed.phone,
        behaviour: behaviours[outcome],
        metadata: seed.metadata,
        createdAtMs: at,
      };
      const tx = this.book.create(input, this.newDetails(input));
      created += 1;
      if (outcome === 'unpaid') continue;
      const when = new Date(at);
      this.book.pay(tx, when);
      if (outcome === 'reversed') this.book.reverse(tx, when);
      if (outcome === 'refunded') {
        const refund = this.book.refund(tx, this.newMovementId('refund'), tx.amount, 'succeeded', new Date(at + BULK_MOVEMENT_DELAY_MS));
        // Unreachable: a payment just paid with the success behaviour is succeeded and wholly refundable.
        if (typeof refund === 'string') throw new Error(`bulk seed: ${reference} could not be refunded (${refund})`);
      }
      if (outcome === 'disputed') {
        const dispute = this.book.dispute(tx, this.newMovementId('dispute'), tx.amount, disputeReason, new Date(at + BULK_MOVEMENT_DELAY_MS));
        if (typeof dispute === 'string') throw new Error(`bulk seed: ${reference} could not be disputed (${dispute})`);
      }
    }
    return {
      ok: true,
      value: {
        created,
        existing,
        first_reference: this.bulkReference(seed.reference_prefix, 0),
        last_reference: this.bulkReference(seed.reference_prefix, seed.count - 1),
      },
    };
  }

  /**
   * `POST /_sandbox/<provider>/transactions/:reference/reverse`: a settled payment reversed after
   * settlement; what the provider's payment object shows of it is the simulator's (Paystack
   * `reversed`; Stripe and Flutterwave unchanged). 404 unknown, 409 not a succeeded payment.
   */
  reverse(reference: string): ControlOutcome<SandboxTransaction> {
    const tx = this.book.get(reference);
    if (!tx) return { ok: false, status: 404, body: { error: 'not found' } };
    if (!this.book.reverse(tx, new Date(this.now()))) {
      return { ok: false, status: 409, body: { error: 'conflict', message: 'only a paid payment that succeeded can be reversed' } };
    }
    return { ok: true, value: tx };
  }

  /**
   * `POST /_sandbox/<provider>/transactions/:reference/refunds` (the body: {@link refundSchema}):
   * the merchant refunds a succeeded payment, in full (no `amount`) or in part; the provider's
   * refund object shows it at once and its notification follows as `webhook` says (the
   * simulator's {@link refundNotification}; a provider without one sends nothing). 404 unknown
   * payment, 409 not a succeeded payment or more than is left to refund.
   */
  refund(reference: string, body: unknown): ControlOutcome<SandboxRefund> {
    const tx = this.book.get(reference);
    if (!tx) return { ok: false, status: 404, body: { error: 'not found' } };
    const parsed = refundSchema.safeParse(body ?? {});
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    const { amount, status, webhook } = parsed.data;
    const refund = this.book.refund(tx, this.newMovementId('refund'), amount ?? this.book.refundable(tx), status, new Date(this.now()));
    if (refund === 'not_paid') return { ok: false, status: 409, body: { error: 'conflict', message: 'only a paid payment that succeeded can be refunded' } };
    if (refund === 'too_much') return { ok: false, status: 409, body: { error: 'conflict', message: `at most ${this.book.refundable(tx)} is left to refund` } };
    this.notifyMovement(tx, webhook, this.refundNotification(tx, refund, 'created'));
    return { ok: true, value: refund };
  }

  /**
   * `POST /_sandbox/<provider>/refunds/:id` (the body: {@link refundUpdateSchema}): a refund's
   * status moves on (`pending` to `succeeded`, or to `failed`, also after it succeeded: a refund
   * the payer's bank sent back), and its notification follows. 404 unknown refund, 409 a failed
   * refund, which is final.
   */
  updateRefund(id: string, body: unknown): ControlOutcome<SandboxRefund> {
    const found = this.book.refundById(id);
    if (!found) return { ok: false, status: 404, body: { error: 'not found' } };
    const parsed = refundUpdateSchema.safeParse(body);
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    if (found.refund.status === 'failed') return { ok: false, status: 409, body: { error: 'conflict', message: 'a failed refund is final' } };
    found.refund.status = parsed.data.status;
    found.refund.updatedAt = new Date(this.now()).toISOString();
    this.notifyMovement(found.tx, parsed.data.webhook, this.refundNotification(found.tx, found.refund, 'updated'));
    return { ok: true, value: found.refund };
  }

  /**
   * `POST /_sandbox/<provider>/transactions/:reference/disputes` (the body: {@link disputeSchema}):
   * the payer's bank opens a dispute (a chargeback) about a succeeded payment, for its whole amount
   * unless `amount` says less; its notification follows. 404 unknown payment, 409 not a
   * succeeded payment.
   */
  openDispute(reference: string, body: unknown): ControlOutcome<SandboxDispute> {
    const tx = this.book.get(reference);
    if (!tx) return { ok: false, status: 404, body: { error: 'not found' } };
    const parsed = disputeSchema.safeParse(body ?? {});
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    const { amount, reason, webhook } = parsed.data;
    if (amount !== undefined && amount > tx.amount) return { ok: false, status: 400, body: { error: 'invalid', message: `at most ${tx.amount}` } };
    const dispute = this.book.dispute(tx, this.newMovementId('dispute'), amount ?? tx.amount, reason, new Date(this.now()));
    if (dispute === 'not_paid') return { ok: false, status: 409, body: { error: 'conflict', message: 'only a paid payment that succeeded can be disputed' } };
    this.notifyMovement(tx, webhook, this.disputeNotification(tx, dispute));
    return { ok: true, value: dispute };
  }

  /**
   * `POST /_sandbox/<provider>/disputes/:id/resolve` (the body: {@link disputeResolutionSchema}):
   * the dispute is decided, `won` (the merchant keeps the money) or `lost` (a chargeback); its
   * notification follows. 404 unknown dispute, 409 a dispute already decided.
   */
  resolveDispute(id: string, body: unknown): ControlOutcome<SandboxDispute> {
    const found = this.book.disputeById(id);
    if (!found) return { ok: false, status: 404, body: { error: 'not found' } };
    const parsed = disputeResolutionSchema.safeParse(body);
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    if (found.dispute.status !== 'open') return { ok: false, status: 409, body: { error: 'conflict', message: 'the dispute is decided already' } };
    found.dispute.status = parsed.data.outcome;
    found.dispute.resolvedAt = new Date(this.now()).toISOString();
    this.notifyMovement(found.tx, parsed.data.webhook, this.disputeNotification(found.tx, found.dispute));
    return { ok: true, value: found.dispute };
  }

  /**
   * A read of the provider's refund or dispute objects (`<provider>.movements.ts`): the answer the
   * key check refuses with ({@link refuseKey}), else what `answer` gives from the book.
   */
  movements(authorization: string | undefined, answer: (book: TransactionBook) => SandboxAnswer): SandboxAnswer {
    return this.refuseKey(authorization) ?? answer(this.book);
  }

  /**
   * The provider's answer to a refund or dispute read whose `Authorization` it refuses (its 401),
   * or null when the key is right. A provider with no such reads refuses every key.
   */
  protected refuseKey(_authorization: string | undefined): SandboxAnswer | null {
    return json(401, { error: 'unauthorized' });
  }

  /** A new refund or dispute id in the provider's own shape (Stripe `re_...`, `dp_...`; numbers as text elsewhere). */
  protected newMovementId(_kind: 'refund' | 'dispute'): string {
    this.movementIds += 1;
    return String(this.movementIds);
  }

  private movementIds = 0;

  /** The provider's notification of a refund as it stands now (just `created`, or `updated` since), or null when the provider sends none. */
  protected refundNotification(
    _tx: SandboxTransaction,
    _refund: SandboxRefund,
    _change: 'created' | 'updated',
  ): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    return null;
  }

  /** The provider's notification of a dispute as it stands now (opened, or decided), or null when the provider sends none. */
  protected disputeNotification(_tx: SandboxTransaction, _dispute: SandboxDispute): ((tx: SandboxTransaction) => OutgoingWebhook) | null {
    return null;
  }

  /** Sends a refund's or a dispute's notification as the control request's `webhook` says (`spoof`: signed with a wrong secret by the builder). */
  private notifyMovement(tx: SandboxTransaction, mode: MovementWebhookMode, build: ((tx: SandboxTransaction) => OutgoingWebhook) | null): void {
    if (build === null || mode === 'drop') return;
    // The payment's own knobs stay as they are: the notification goes out at once, signed as the mode says.
    const view: SandboxTransaction = { ...tx, behaviour: { ...tx.behaviour, webhook: mode, webhook_delay_ms: 0 } };
    this.notifier.dispatch(view, this.name, () => build(view));
  }

  private listFailures: ListFailures = { status: 429, remaining: 0, retryAfterSeconds: null };

  /** `POST /_sandbox/<provider>/list/failures`: the next list calls fail (the body: `listFailuresSchema`). */
  failLists(body: unknown): ControlOutcome<{ status: number; times: number; retry_after_seconds: number | null }> {
    if (!this.lists) return this.noList();
    const parsed = listFailuresSchema.safeParse(body);
    if (!parsed.success) return { ok: false, status: 400, body: { error: 'invalid', issues: z.treeifyError(parsed.error) } };
    const { status, times, retry_after_seconds: given } = parsed.data;
    const retryAfterSeconds = given ?? (status === 429 ? 1 : null);
    this.listFailures = { status, remaining: times, retryAfterSeconds };
    return { ok: true, value: { status, times, retry_after_seconds: retryAfterSeconds } };
  }

  /** The provider's error body for a list call failed on purpose (429, 5xx), in its own shape. */
  protected listErrorBody(status: number): unknown {
    return { error: status === 429 ? 'Too Many Requests' : 'Server Error' };
  }

  /**
   * The failure the next list call serves, if one is due (it is used up), with its
   * `Retry-After`; null otherwise. List endpoints call it once the credentials are checked.
   */
  protected listFailure(): SandboxAnswer | null {
    const failures = this.listFailures;
    if (failures.remaining <= 0) return null;
    failures.remaining -= 1;
    const answer = json(failures.status, this.listErrorBody(failures.status));
    return failures.retryAfterSeconds === null || answer.kind !== 'json'
      ? answer
      : { ...answer, headers: { 'retry-after': String(failures.retryAfterSeconds) } };
  }
}
