import {
  decide,
  fold,
  initialState,
  isTerminal,
  parseAccessPeriod,
  VERIFICATION_TRIGGERS,
  type AccessPeriod,
  type Expectation,
  type ProviderName,
  type VerificationTrigger,
} from '@settle/domain';
import { Outbox, OutboxRelay, PermanentMessageError, type MessageContext, type TypedEvent } from '@settle/messaging';
import { deterministicId, inTransaction, type Logger, type Pool } from '@settle/platform';
import type { PaymentProvider } from '@settle/providers';
import { toConsensusResult } from './consensus-result.js';
import { TransactionRepository } from './transaction.repository.js';
import { VerifierMetrics } from './verifier.metrics.js';

/** A registration's access period; a malformed one can never be processed. */
function accessPeriodOf(text: string): AccessPeriod {
  try {
    return parseAccessPeriod(text);
  } catch (error) {
    throw new PermanentMessageError('VERIFICATION.INVALID_ACCESS_PERIOD', (error as Error).message);
  }
}

/** A concurrent writer changed the transaction first; retried by the consumer loop. */
class ConcurrentUpdateError extends Error {
  constructor(reference: string) {
    super(`Transaction ${reference} changed concurrently`);
    this.name = 'ConcurrentUpdateError';
  }
}

/**
 * The verifier's application service. For each message on the transaction-events stream:
 * - `CheckoutRegistered` / `CheckoutCompleted`: folded into the transaction's state;
 * - `ProviderWebhookReceived` / `VerificationRequested`: a trigger. The provider is queried
 *   server to server, the decider applies the four-point consensus and the transition
 *   table, and the result is committed with its outbox message in one transaction.
 * A verified webhook is only a trigger: nothing is granted on a webhook or a bare HTTP 200.
 */
export class VerificationService {
  constructor(
    private readonly pool: Pool,
    private readonly transactions: TransactionRepository,
    private readonly providers: ReadonlyMap<ProviderName, PaymentProvider>,
    private readonly outbox: Outbox,
    private readonly relay: OutboxRelay,
    private readonly logger: Logger,
    private readonly metrics: VerifierMetrics = new VerifierMetrics(),
    private readonly clock: () => number = Date.now,
  ) {}

  /** Handles one decoded message; resolves once its effects are committed. */
  async handle(event: TypedEvent, context: MessageContext): Promise<void> {
    switch (event.type) {
      case 'CheckoutRegistered':
        return this.register(event.payload);
      case 'CheckoutCompleted':
        return this.complete(event.payload.reference, event.payload.event_id, event.payload.occurred_at);
      case 'ProviderWebhookReceived':
        return this.verify(event.payload.reference, 'webhook_received', event.payload.event_id, context);
      case 'VerificationRequested': {
        const trigger = event.payload.trigger as VerificationTrigger;
        if (!VERIFICATION_TRIGGERS.includes(trigger)) {
          throw new PermanentMessageError('VERIFICATION.UNKNOWN_TRIGGER', `Unknown trigger ${event.payload.trigger}`);
        }
        return this.verify(event.payload.reference, trigger, event.payload.event_id, context);
      }
      default:
        this.logger.debug({ type: event.type }, 'ignored message type');
    }
  }

  private async register(p: Extract<TypedEvent, { type: 'CheckoutRegistered' }>['payload']): Promise<void> {
    const expectation: Expectation = {
      reference: p.reference,
      provider: p.provider as ProviderName,
      amountMinor: p.amount_minor,
      currency: p.currency,
      userId: p.user_id,
      customer: { email: p.customer_email ?? undefined, phone: p.customer_phone ?? undefined },
      entitlement: p.entitlement,
      accessPeriod: p.access_period === null ? null : accessPeriodOf(p.access_period),
    };
    if (!this.providers.has(expectation.provider)) {
      throw new PermanentMessageError('VERIFICATION.UNSUPPORTED_PROVIDER', `No adapter for provider ${p.provider}`);
    }
    await inTransaction(this.pool, async (client) => {
      if (!(await this.transactions.markProcessed(client, p.event_id))) return;
      const stored = await this.transactions.load(p.reference, client, true);
      const state = stored?.state ?? initialState();
      const events = decide({ type: 'RegisterCheckout', data: { expectation, registeredAt: p.occurred_at } }, state);
      if (events.length > 0) await this.transactions.insert(client, fold(events, state), p.correlation_id);
    });
  }

  private async complete(reference: string, eventId: string, at: number): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      if (!(await this.transactions.markProcessed(client, eventId))) return;
      const stored = await this.transactions.load(reference, client, true);
      const state = stored?.state ?? initialState();
      const events = decide({ type: 'CompleteCheckout', data: { reference, completedAt: at } }, state);
      if (events.length > 0 && !(await this.transactions.save(client, fold(events, state), state.outcomes))) {
        throw new ConcurrentUpdateError(reference);
      }
    });
  }

  private async verify(reference: string, trigger: VerificationTrigger, causationId: string, context: MessageContext): Promise<void> {
    const log = this.logger.child({ reference, trigger, topic: context.topic, partition: context.partition, offset: context.offset });
    if (await this.transactions.isProcessed(causationId)) return;
    const stored = await this.transactions.load(reference);
    if (!stored) {
      // A webhook racing the checkout: the sweeper verifies once the checkout is registered.
      log.warn('verification trigger for an unregistered reference; left to the sweeper');
      await inTransaction(this.pool, (client) => this.transactions.markProcessed(client, causationId));
      return;
    }
    if (isTerminal(stored.state.status)) {
      await inTransaction(this.pool, (client) => this.transactions.markProcessed(client, causationId));
      log.debug({ state: stored.state.status }, 'already terminal; no provider query');
      return;
    }
    const provider = this.providers.get(stored.state.expectation!.provider);
    if (!provider) throw new PermanentMessageError('VERIFICATION.UNSUPPORTED_PROVIDER', 'No adapter for this provider');

    const verdict = await provider.verify({ reference, expectation: stored.state.expectation! });
    const verifiedAt = this.clock();
    const verificationId = deterministicId('Verification', causationId);
    const before = stored.state;
    const events = decide({ type: 'RecordVerification', data: { reference, verificationId, trigger, verdict, verifiedAt } }, before);
    const after = fold(events, before);
    const result = toConsensusResult({
      resultId: verificationId,
      causationId,
      correlationId: stored.correlationId,
      trigger,
      verdict,
      before,
      after,
      events,
      decidedAt: verifiedAt,
    });
    const committed = await inTransaction(this.pool, async (client) => {
      if (!(await this.transactions.markProcessed(client, causationId))) return false;
      if (events.length > 0 && !(await this.transactions.save(client, after, before.outcomes))) {
        throw new ConcurrentUpdateError(reference);
      }
      await this.outbox.enqueue(client, [{ type: 'ConsensusResult', payload: result, causationId }]);
      return true;
    });
    if (committed) this.relay.wake();
    log.info({ verdict: verdict.kind, outcome: result.outcome, state: after.status, cause: result.detail }, 'verification decided');
    if (committed) this.metrics.verifications.inc({ provider: result.provider, trigger, verdict: verdict.kind, outcome: result.outcome });
    if (committed && result.outcome === 'MANUAL_REVIEW') {
      this.metrics.manualReviews.inc({ last_verdict: verdict.kind });
      // The alert of docs/state-machine.md decision 6: a stable `alert` field for log-based
      // alerting, at error level, once per transaction (the outcome is recorded only once).
      log.error(
        { alert: 'SETTLE_MANUAL_REVIEW_REQUIRED', lastVerdict: verdict.kind, entitlement: after.entitlement, state: after.status },
        'automatic re-checks exhausted: transaction moved to manual review',
      );
    }
  }
}

