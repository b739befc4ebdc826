import {
  candidateAnswer,
  decide,
  isPermanentError,
  isRegistered,
  type RegisteredTransaction,
  type TransactionState,
  fold,
  initialState,
  isTerminal,
  parseAccessPeriod,
  type AccessPeriod,
  type Expectation,
  type ProviderName,
  type ProviderVerdict,
  type UnmatchedCloseReason,
  type UnmatchedPayment,
  type VerificationTrigger,
} from '@settle/domain';
import {
  messageLogContext,
  OutboxRelay,
  PermanentMessageError,
  type BatchItem,
  type MessageContext,
  type OutboxMessage,
  type TypedEvent,
} from '@settle/messaging';
import {
  deterministicId,
  endSpan,
  SETTLE_SPAN_ATTRIBUTES,
  startSpan,
  traceCarrierOf,
  withTraceContext,
  type Logger,
  type TraceCarrier,
} from '@settle/platform';
import { canReadMovements, isMovementEventType, PROVIDER_REGISTRY, type PaymentProvider } from '@settle/providers';
import type { ConsensusResultV1, MoneyMovementsObservedV1, UnmatchedPaymentObservedV1 } from '@settle/messaging';
import { MaskingOnlyCustomerDataSealer, type CustomerDataSealer, type SealedCustomer } from './customer-data-sealer.js';
import { moneyMovementsObserved, readsMovements } from './money-movements.js';
import { toConsensusResult } from './consensus-result.js';
import { runPerKey } from './per-key-batch.js';
import type { StoredTransaction, UnmatchedCandidate, VerificationStore } from './verification-store.port.js';
import { VerifierMetrics } from './verifier.metrics.js';

/** A registration's access period; a malformed one can never be processed. */
function accessPeriodOf(text: string): AccessPeriod {
  try {
    return parseAccessPeriod(text);
  } catch (error) {
    throw new PermanentMessageError('VERIFICATION.INVALID_ACCESS_PERIOD', (error as Error).message);
  }
}

/** A message of the batch, as the command it stands for; all of one reference run in order. */
type Step =
  | {
      kind: 'register';
      index: number;
      eventId: string;
      payload: Extract<TypedEvent, { type: 'CheckoutRegistered' }>['payload'];
      expectation: Expectation;
      context: MessageContext;
    }
  | { kind: 'complete'; index: number; eventId: string; at: number }
  | {
      kind: 'close';
      index: number;
      eventId: string;
      payload: Extract<TypedEvent, { type: 'UnmatchedPaymentCloseRequested' }>['payload'];
      context: MessageContext;
    }
  | {
      kind: 'verify';
      index: number;
      eventId: string;
      trigger: VerificationTrigger;
      context: MessageContext;
      /** A signed webhook's provider and arrival (epoch ms): what an unmatched payment candidate starts from. */
      webhook?: { provider: ProviderName; at: number; correlationId: string; movement: boolean };
    };

/** One reference's work in a batch: its state as loaded, as decided so far, and what to write. */
interface Chain {
  reference: string;
  steps: Step[];
  /** As loaded before the batch; `null`: never registered. */
  loaded: StoredTransaction | null;
  state: TransactionState;
  correlationId: string | null;
  /** Message ids handled (to be recorded in the inbox with the batch's commit). */
  handled: string[];
  /** Consensus results decided, each with the trace context of its trigger's verification (for its outbox row). */
  results: Array<{ payload: ConsensusResultV1; trace: TraceCarrier | undefined }>;
  /** The reference's unmatched payment candidate, as loaded and as decided so far (docs/unmatched-payments.md). */
  candidate: UnmatchedCandidate | null;
  /** Whether the candidate changed in this batch (to be written with the commit). */
  candidateChanged: boolean;
  /** Answers about the candidate, for the outbox. */
  observations: Array<{ payload: UnmatchedPaymentObservedV1; trace: TraceCarrier | undefined }>;
  /** What the provider showed about a settled payment's money, for the outbox (the projector records it). */
  movements: Array<{ payload: MoneyMovementsObservedV1; trace: TraceCarrier | undefined }>;
}

/** The tracer of the verifier's own spans. */
const VERIFIER_TRACER = '@settle/verifier';

/** Options of {@link VerificationService}. */
export interface VerificationOptions {
  /**
   * References of one batch verified at once (provider calls in flight per consumer loop
   * partition); the messages of one reference are always handled in order. Default 64.
   */
  keyConcurrency?: number;
  /**
   * While some references of a batch still wait for their provider, the finished ones are
   * committed this often, milliseconds (default 100): a slow provider answer delays only its
   * own reference's result. The batch's offsets are resolved once all are committed.
   */
  flushIntervalMs?: number;
  /** epoch ms; injected so tests drive a fake clock. */
  clock?: () => number;
  /**
   * Called with the references settled by a commit, once it committed (the live duplicate charge
   * check of docs/reconciliation.md); a failure is logged, never retried here (the next
   * reconciliation run finds the duplicate instead).
   */
  onSettled?: (references: readonly string[]) => Promise<void>;
  /**
   * Seals the payer's email and phone of an unmatched payment before they leave the verifier
   * (docs/privacy.md, "Crypto-shredding"). Default: masked forms only, the sealed fields `null`
   * (a verifier with no privacy vault); never the plaintext.
   */
  sealer?: CustomerDataSealer;
}

/**
 * The verifier's application service, batch first (one PostgreSQL transaction per Kafka
 * batch). For each message on the transaction-events stream:
 * - `CheckoutRegistered` / `CheckoutCompleted`: folded into the transaction's state;
 * - `ProviderWebhookReceived` / `VerificationRequested`: a trigger. The provider is queried
 *   server to server, the decider applies the four-point consensus and the transition
 *   table, and the result is committed with its outbox message.
 * A verified webhook is only a trigger: nothing is granted on a webhook or a bare HTTP 200.
 *
 * A batch is handled in three steps: one read (the inbox and the states of every reference
 * in it), the decisions (references in parallel, up to `keyConcurrency` provider calls in
 * flight, each reference's messages in offset order), and one transaction writing the inbox,
 * the states (optimistic on the outcome count) and the outbox rows of the whole batch. When
 * some references wait on a slow provider, the finished ones are committed meanwhile (every
 * `flushIntervalMs`), so one slow answer delays only its own reference's result: the per-key
 * batch engine, `runPerKey` (per-key-batch.ts). The consumer
 * loop resolves the batch's offsets only after everything of it committed.
 */
export class VerificationService {
  private readonly keyConcurrency: number;
  private readonly flushIntervalMs: number;
  private readonly clock: () => number;
  private readonly onSettled: VerificationOptions['onSettled'];
  private readonly sealer: CustomerDataSealer;

  /**
   * @param store - the inbox, the transactions' states and the outbox (PostgreSQL in the app,
   *   in memory in unit tests).
   * @param providers - an adapter per provider the verifier may query.
   * @param relay - woken after a commit that wrote outbox messages.
   */
  constructor(
    private readonly store: VerificationStore,
    private readonly providers: ReadonlyMap<ProviderName, PaymentProvider>,
    private readonly relay: Pick<OutboxRelay, 'wake'>,
    private readonly logger: Logger,
    private readonly metrics: VerifierMetrics = new VerifierMetrics(),
    options: VerificationOptions = {},
  ) {
    this.keyConcurrency = options.keyConcurrency ?? 64;
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.clock = options.clock ?? Date.now;
    this.onSettled = options.onSettled;
    this.sealer = options.sealer ?? new MaskingOnlyCustomerDataSealer();
  }

  /**
   * Handles the messages of one fetched batch (one partition, in offset order) and commits
   * their effects in one transaction (several, `flushIntervalMs` apart, while a slow provider
   * answer is awaited); resolves once everything committed.
   *
   * @returns the messages that can never be processed (bad registration, unknown trigger, a
   *   broken business rule), by index, for the dead-letter topic; the rest is committed.
   * @throws ConcurrentUpdateError when another member wrote one of the batch's transactions
   *   or inbox ids meanwhile (nothing committed; the batch is retried); a transient failure of
   *   one reference's step after the others were committed (the batch is retried and the
   *   inbox skips what was committed); database errors.
   */
  async handleBatch(items: readonly BatchItem[]): Promise<Array<{ index: number; error: unknown }>> {
    const failed: Array<{ index: number; error: unknown }> = [];
    const chains = new Map<string, Chain>();
    // A message published twice by a relay retry may arrive twice in one batch: handled once.
    const seen = new Set<string>();
    for (const [index, { event, context }] of items.entries()) {
      if (seen.has(event.payload.event_id)) continue;
      seen.add(event.payload.event_id);
      let step: Step | null;
      try {
        step = this.stepOf(index, event, context);
      } catch (error) {
        failed.push({ index, error });
        continue;
      }
      if (!step) continue;
      const reference = event.payload.reference;
      const chain = chains.get(reference) ?? {
        reference,
        steps: [],
        loaded: null,
        state: initialState(),
        correlationId: null,
        handled: [],
        results: [],
        candidate: null,
        candidateChanged: false,
        observations: [],
        movements: [],
      };
      chain.steps.push(step);
      chains.set(reference, chain);
    }
    if (chains.size === 0) return failed;

    const all = [...chains.values()];
    const [processed, loaded, candidates] = await Promise.all([
      this.store.processedAmong(all.flatMap((c) => c.steps.map((s) => s.eventId))),
      this.store.loadMany(all.map((c) => c.reference)),
      this.store.loadCandidates(all.map((c) => c.reference)),
    ]);
    await runPerKey({
      keys: all,
      concurrency: this.keyConcurrency,
      flushIntervalMs: this.flushIntervalMs,
      commit: (finished) => this.commit(finished),
      run: async (chain) => {
        chain.loaded = loaded.get(chain.reference) ?? null;
        chain.state = chain.loaded?.state ?? initialState();
        chain.correlationId = chain.loaded?.correlationId ?? null;
        chain.candidate = candidates.get(chain.reference) ?? null;
        for (const step of chain.steps) {
          if (processed.has(step.eventId)) continue;
          try {
            await this.apply(chain, step);
            chain.handled.push(step.eventId);
          } catch (error) {
            // A transient failure stops the reference here; the others are committed, and the
            // retried batch resumes this one from its first unhandled message.
            if (!isPermanentFailure(error)) return error;
            failed.push({ index: step.index, error });
          }
        }
        return undefined;
      },
    });
    return failed;
  }

  /**
   * Commits what finished chains decided, in one store commit (one PostgreSQL transaction): their handled message ids in
   * the inbox, new and changed states (optimistic on the outcome count), and their consensus
   * results in the outbox; then wakes the relay and logs.
   *
   * @throws ConcurrentUpdateError when another member wrote one of them meanwhile (nothing committed).
   */
  private async commit(chains: readonly Chain[]): Promise<void> {
    const changed = chains.filter((c) => c.handled.length > 0);
    if (changed.length === 0) return;
    const handled = changed.flatMap((c) => c.handled);
    const inserts = changed.flatMap((c) => (c.loaded === null && isRegistered(c.state) ? [{ chain: c, state: c.state }] : []));
    const updates = changed.flatMap((c) =>
      c.loaded !== null && isRegistered(c.state) && !sameState(c.loaded.state, c.state) ? [{ chain: c, state: c.state }] : [],
    );
    const messages: OutboxMessage[] = changed.flatMap((c) => [
      ...c.observations.map(({ payload, trace }) => ({ type: 'UnmatchedPaymentObserved' as const, payload, causationId: payload.causation_id, trace })),
      ...c.results.map(({ payload, trace }) => ({ type: 'ConsensusResult' as const, payload, causationId: payload.causation_id, trace })),
      ...c.movements.map(({ payload, trace }) => ({ type: 'MoneyMovementsObserved' as const, payload, causationId: payload.causation_id, trace })),
    ]);
    await this.store.commit({
      handled,
      inserts: inserts.map((c) => ({ state: c.state, correlationId: c.chain.correlationId! })),
      saves: updates.map((c) => ({ state: c.state, previousOutcomes: c.chain.loaded!.state.outcomes })),
      messages,
      candidates: changed.flatMap((c) => (c.candidateChanged && c.candidate ? [c.candidate] : [])),
    });
    if (messages.length > 0) this.relay.wake();
    for (const chain of changed) {
      for (const observation of chain.observations) this.observed(observation.payload);
      for (const result of chain.results) this.recorded(result.payload);
      for (const { payload } of chain.movements) {
        this.logger.info(
          { reference: payload.reference, trigger: payload.trigger, movements: payload.movements.length, correlationId: payload.correlation_id },
          'refunds, reversals and disputes read from the provider',
        );
      }
    }
    const settled = changed.flatMap((c) =>
      c.results.filter((r) => r.payload.state_after === 'SETTLED_CONSENSUS' && r.payload.state_before !== 'SETTLED_CONSENSUS').map((r) => r.payload.reference),
    );
    if (settled.length > 0 && this.onSettled) {
      await this.onSettled(settled).catch((error: unknown) =>
        this.logger.error({ err: error, references: settled }, 'live duplicate charge check failed; the next reconciliation run checks them'),
      );
    }
  }

  /**
   * The step a message stands for; `null` for a message type the verifier ignores.
   *
   * @throws PermanentMessageError for a registration of a provider without an adapter here or
   *   with an invalid access period.
   */
  private stepOf(index: number, event: TypedEvent, context: MessageContext): Step | null {
    switch (event.type) {
      case 'CheckoutRegistered': {
        const p = event.payload;
        const expectation: Expectation = {
          reference: p.reference,
          provider: p.provider,
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
        return { kind: 'register', index, eventId: p.event_id, payload: p, expectation, context };
      }
      case 'CheckoutCompleted':
        return { kind: 'complete', index, eventId: event.payload.event_id, at: event.payload.occurred_at };
      case 'UnmatchedPaymentCloseRequested':
        return { kind: 'close', index, eventId: event.payload.event_id, payload: event.payload, context };
      case 'ProviderWebhookReceived': {
        const p = event.payload;
        // Whether it is a notification about a settled payment's money (a refund, a dispute), read once here.
        const movement = isMovementEventType(PROVIDER_REGISTRY[p.provider].webhook.movementNotifications, p.provider_event_type);
        const webhook = { provider: p.provider, at: p.occurred_at, correlationId: p.correlation_id, movement };
        return { kind: 'verify', index, eventId: p.event_id, trigger: 'webhook_received', context, webhook };
      }
      case 'VerificationRequested':
        // The codec refused an unknown trigger at decode time (a DecodeError, dead-lettered).
        return { kind: 'verify', index, eventId: event.payload.event_id, trigger: event.payload.trigger, context };
      default:
        this.logger.debug({ type: event.type }, 'ignored message type');
        return null;
    }
  }

  /** Applies one step to its reference's state in memory (a provider query for a trigger). */
  private async apply(chain: Chain, step: Step): Promise<void> {
    switch (step.kind) {
      case 'register': {
        const events = decide({ type: 'RegisterCheckout', data: { expectation: step.expectation, registeredAt: step.payload.occurred_at } }, chain.state);
        if (events.length === 0) return;
        // Sealed before anything changes: a vault failure leaves the chain as it was (not
        // registered), so the retried batch registers it again and matches the candidate.
        const sealed = await this.sealMatched(chain.candidate);
        if (chain.loaded === null && !isRegistered(chain.state)) chain.correlationId = step.payload.correlation_id;
        chain.state = fold(events, chain.state);
        await this.matchCandidate(chain, step, sealed);
        return;
      }
      case 'complete': {
        const events = decide({ type: 'CompleteCheckout', data: { reference: chain.reference, completedAt: step.at } }, chain.state);
        chain.state = fold(events, chain.state);
        return;
      }
      case 'verify':
        return this.verify(chain, step);
      case 'close':
        return this.closeCandidate(chain, step);
    }
  }

  private async verify(chain: Chain, step: Extract<Step, { kind: 'verify' }>): Promise<void> {
    const { reference } = chain;
    const { trigger, eventId: causationId, context } = step;
    const before = chain.state;
    if (!isRegistered(before)) return this.verifyUnregistered(chain, step);
    if (isTerminal(before.status)) {
      const movement = step.webhook?.movement === true;
      if (readsMovements(before.status, trigger, movement)) return this.readMovements(chain, step);
      this.logger.debug({ reference, trigger, state: before.status }, 'already terminal; no provider query');
      return;
    }
    const provider = this.providers.get(before.expectation.provider);
    if (!provider) throw new PermanentMessageError('VERIFICATION.UNSUPPORTED_PROVIDER', 'No adapter for this provider');

    // One span per verification, a child of the trigger's `process` span; the provider's HTTP
    // calls (retries included) are its children, and the result's outbox row continues it.
    const { span, context: traced } = startSpan(VERIFIER_TRACER, `verify ${before.expectation.provider}`, {
      parent: context.trace,
      attributes: {
        [SETTLE_SPAN_ATTRIBUTES.reference]: reference,
        [SETTLE_SPAN_ATTRIBUTES.provider]: before.expectation.provider,
        [SETTLE_SPAN_ATTRIBUTES.trigger]: trigger,
      },
    });
    let verdict: ProviderVerdict;
    try {
      verdict = await withTraceContext(traced, () => provider.verify({ reference, expectation: before.expectation }));
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
    span.setAttribute(SETTLE_SPAN_ATTRIBUTES.verdict, verdict.kind);
    endSpan(span);
    const verifiedAt = this.clock();
    const verificationId = deterministicId('Verification', causationId);
    const events = decide({ type: 'RecordVerification', data: { reference, verificationId, trigger, verdict, verifiedAt } }, before);
    const after = fold(events, before);
    chain.state = after;
    // A refund or dispute notification that reached a payment before its settlement: once this
    // verification settled it, its money is read too (a refunded Stripe PaymentIntent stays
    // `succeeded`, so nothing else would ever read that refund).
    const movement = step.webhook?.movement === true;
    chain.results.push({
      trace: traceCarrierOf(traced),
      payload: toConsensusResult({
        resultId: verificationId,
        causationId,
        correlationId: chain.correlationId!,
        trigger,
        verdict,
        before,
        after,
        events,
        decidedAt: verifiedAt,
      }),
    });
    if (movement && readsMovements(after.status, trigger, true)) await this.readMovements(chain, step);
  }

  /**
   * A trigger that asks what happened to a settled payment's money (docs/state-machine.md, "The
   * money after settlement"; {@link readsMovements}): the provider's refunds, disputes and
   * reversal of the payment are read server to server, read-only, and published as they are
   * (`MoneyMovementsObserved`); the ledger projector decides what to record against the
   * transaction's ledger stream. A provider whose adapter cannot read them is not asked (logged).
   */
  private async readMovements(chain: Chain, step: Extract<Step, { kind: 'verify' }>): Promise<void> {
    const { reference } = chain;
    const before = chain.state as RegisteredTransaction;
    const provider = this.providers.get(before.expectation.provider);
    if (!provider || !canReadMovements(provider)) {
      this.logger.info(
        { reference, provider: before.expectation.provider, trigger: step.trigger },
        "the provider's refunds and disputes cannot be read; nothing asked",
      );
      return;
    }
    const { span, context: traced } = startSpan(VERIFIER_TRACER, `movements ${before.expectation.provider}`, {
      parent: step.context.trace,
      attributes: {
        [SETTLE_SPAN_ATTRIBUTES.reference]: reference,
        [SETTLE_SPAN_ATTRIBUTES.provider]: before.expectation.provider,
        [SETTLE_SPAN_ATTRIBUTES.trigger]: step.trigger,
      },
    });
    let read;
    try {
      read = await withTraceContext(traced, () => provider.movementsOf(reference));
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
    endSpan(span);
    if (read.skipped && read.skipped.length > 0) {
      this.logger.warn({ reference, skipped: read.skipped }, 'refunds or disputes the provider adapter could not read; left for review');
    }
    chain.movements.push({
      trace: traceCarrierOf(traced),
      payload: moneyMovementsObserved({
        eventId: deterministicId('MoneyMovementsObserved', step.eventId),
        at: this.clock(),
        correlationId: chain.correlationId!,
        causationId: step.eventId,
        reference,
        provider: before.expectation.provider,
        trigger: step.trigger,
        movements: read,
      }),
    });
  }

  /**
   * A trigger for a reference with no checkout (docs/unmatched-payments.md). A signed webhook
   * makes it an unmatched payment candidate (no provider query yet: an honest registration racing
   * its webhook wins during the grace period); the sweeper's `unmatched_payment` request, once the
   * grace period passed, queries the provider server to server, read-only, with no expected
   * terms, and records its answer; so does a reconciliation run's request (trigger
   * `reconciliation`) for a payment the provider's own list showed and the run made a candidate.
   * Any other trigger (a spoofed webhook among them) asks the provider nothing.
   */
  private async verifyUnregistered(chain: Chain, step: Extract<Step, { kind: 'verify' }>): Promise<void> {
    const { reference } = chain;
    const { trigger, context, webhook } = step;
    if (webhook) {
      // A refund or dispute notification is about a payment's money, never a payment itself: it
      // names a payment Settle may not know, and makes no unmatched payment candidate.
      if (webhook.movement) {
        this.logger.info(
          { ...messageLogContext(context), reference, provider: webhook.provider },
          'refund or dispute notification for a reference with no checkout; ignored',
        );
        return;
      }
      if (!chain.candidate) {
        chain.candidate = {
          reference,
          provider: webhook.provider,
          correlationId: webhook.correlationId,
          status: 'candidate',
          firstSeenAt: webhook.at,
          payment: null,
          matchedAt: null,
        };
        chain.candidateChanged = true;
        this.logger.info(
          { ...messageLogContext(context), reference, provider: webhook.provider },
          'signed webhook for a reference with no checkout: an unmatched payment candidate',
        );
      }
      return;
    }
    const candidate = chain.candidate;
    // The sweeper's request after the grace period, or a reconciliation run's: the provider's own
    // list showed the payment (docs/reconciliation.md). Either way a candidate exists already.
    if ((trigger !== 'unmatched_payment' && trigger !== 'reconciliation') || !candidate) {
      this.logger.warn(
        { ...messageLogContext(context), reference, trigger },
        'verification trigger for a reference with no checkout and no signed webhook; the provider is not asked',
      );
      return;
    }
    if (candidate.status !== 'candidate') return;
    const provider = this.providers.get(candidate.provider);
    if (!provider) throw new PermanentMessageError('VERIFICATION.UNSUPPORTED_PROVIDER', 'No adapter for this provider');
    const { span, context: traced } = startSpan(VERIFIER_TRACER, `verify ${candidate.provider}`, {
      parent: context.trace,
      attributes: {
        [SETTLE_SPAN_ATTRIBUTES.reference]: reference,
        [SETTLE_SPAN_ATTRIBUTES.provider]: candidate.provider,
        [SETTLE_SPAN_ATTRIBUTES.trigger]: trigger,
      },
    });
    let verdict: ProviderVerdict;
    try {
      verdict = await withTraceContext(traced, () => provider.verify({ reference, expectation: null }));
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
    span.setAttribute(SETTLE_SPAN_ATTRIBUTES.verdict, verdict.kind);
    endSpan(span);
    const at = this.clock();
    const answer = candidateAnswer(candidate.provider, reference, verdict, at);
    const payment = answer.kind === 'recorded' ? answer.payment : null;
    // Sealed before anything changes: a vault failure leaves the reference as it was, for the retry.
    const customer = await this.sealer.seal(payment?.customer ?? null);
    if (answer.kind !== 'unresolved') {
      chain.candidate = { ...candidate, status: answer.kind, payment };
      chain.candidateChanged = true;
    }
    chain.observations.push({
      trace: traceCarrierOf(traced),
      payload: observationOf(candidate, customer, {
        eventId: deterministicId('UnmatchedPaymentObserved', step.eventId),
        at,
        causationId: step.eventId,
        observation: answer.kind,
        verdict: verdict.kind,
        providerStatus: payment?.providerStatus ?? (answer.kind === 'declined' ? answer.providerStatus : null),
        payment,
      }),
    });
  }

  /**
   * The sealed and masked customer of the `matched` record a registration publishes for its
   * reference's candidate ({@link matchCandidate}): for a recorded candidate only, `null` for any
   * other (nothing is published). Called before the registration changes the chain.
   *
   * @throws the sealer's errors (a transient failure: the batch is retried).
   */
  private async sealMatched(candidate: UnmatchedCandidate | null): Promise<SealedCustomer | null> {
    return candidate?.status === 'recorded' ? this.sealer.seal(candidate.payment?.customer ?? null) : null;
  }

  /**
   * A checkout registered under the reference of an unmatched payment candidate: the candidate is
   * closed as matched. When it had been recorded (the provider confirmed the payment), the
   * closing is published and the checkout is verified at once (trigger `unmatched_payment`): the
   * four checks run against the provider's answer as for any checkout, and a mismatch ends in
   * State Mismatch as usual.
   *
   * @param customer - the closing record's customer, sealed before the registration was folded
   *   ({@link sealMatched}); `null` when the candidate was not recorded.
   */
  private async matchCandidate(chain: Chain, step: Extract<Step, { kind: 'register' }>, customer: SealedCustomer | null): Promise<void> {
    const candidate = chain.candidate;
    // A closed payment stays closed (the operator's word stands); the checkout is verified as any other.
    if (!candidate || candidate.status === 'matched' || candidate.status === 'closed') return;
    chain.candidate = { ...candidate, status: 'matched', matchedAt: step.payload.occurred_at };
    chain.candidateChanged = true;
    if (!customer) return;
    chain.observations.push({
      trace: traceCarrierOf(step.context.trace),
      payload: observationOf(candidate, customer, {
        eventId: deterministicId('UnmatchedPaymentObserved', step.eventId),
        at: step.payload.occurred_at,
        causationId: step.eventId,
        observation: 'matched',
        verdict: null,
        providerStatus: candidate.payment?.providerStatus ?? null,
        payment: candidate.payment,
      }),
    });
    await this.verify(chain, { kind: 'verify', index: step.index, eventId: step.eventId, trigger: 'unmatched_payment', context: step.context });
  }

  /**
   * An operator closes a recorded unmatched payment with a reason (docs/unmatched-payments.md):
   * its record is closed and the closing published, for the ledger. A request for a payment that
   * is not recorded (matched or closed meanwhile) changes nothing.
   */
  private async closeCandidate(chain: Chain, step: Extract<Step, { kind: 'close' }>): Promise<void> {
    const candidate = chain.candidate;
    const p = step.payload;
    if (candidate?.status !== 'recorded') {
      this.logger.warn(
        { ...messageLogContext(step.context), reference: chain.reference, status: candidate?.status ?? null },
        'close request for a payment that is not an open unmatched payment; nothing changed',
      );
      return;
    }
    const customer = await this.sealer.seal(candidate.payment?.customer ?? null);
    chain.candidate = { ...candidate, status: 'closed' };
    chain.candidateChanged = true;
    chain.observations.push({
      trace: traceCarrierOf(step.context.trace),
      payload: observationOf(candidate, customer, {
        eventId: deterministicId('UnmatchedPaymentObserved', step.eventId),
        at: p.occurred_at,
        causationId: step.eventId,
        observation: 'closed',
        verdict: null,
        providerStatus: candidate.payment?.providerStatus ?? null,
        payment: candidate.payment,
        close: { reason: p.reason, note: p.note, by: p.closed_by },
      }),
    });
  }

  /** Logs and counts a committed answer about an unmatched payment (the alert of a recorded one included). */
  private observed(observation: UnmatchedPaymentObservedV1): void {
    this.metrics.unmatchedPayments.inc({ provider: observation.provider, observation: observation.observation });
    const fields = {
      reference: observation.reference,
      provider: observation.provider,
      observation: observation.observation,
      verdict: observation.verdict,
      correlationId: observation.correlation_id,
    };
    if (observation.observation === 'recorded') {
      this.logger.warn(
        { ...fields, alert: 'SETTLE_UNMATCHED_PAYMENT', termsVerified: observation.terms_verified },
        'paid, but no checkout: unmatched payment recorded',
      );
    } else {
      this.logger.info(fields, 'unmatched payment candidate answered');
    }
  }

  /** Logs and counts a committed consensus result (the manual-review alert included). */
  private recorded(result: ConsensusResultV1): void {
    const log = this.logger.child({
      reference: result.reference,
      trigger: result.trigger,
      correlationId: result.correlation_id,
      causationId: result.causation_id,
    });
    log.info({ verdict: result.verdict, outcome: result.outcome, state: result.state_after, cause: result.detail }, 'verification decided');
    this.metrics.verifications.inc({ provider: result.provider, trigger: result.trigger, verdict: result.verdict, outcome: result.outcome });
    if (result.outcome === 'MANUAL_REVIEW') {
      this.metrics.manualReviews.inc({ last_verdict: result.verdict });
      // The alert of docs/state-machine.md decision 6: a stable `alert` field for log-based
      // alerting, at error level, once per transaction (the outcome is recorded only once).
      log.error(
        { alert: 'SETTLE_MANUAL_REVIEW_REQUIRED', lastVerdict: result.verdict, entitlement: result.entitlement_status, state: result.state_after },
        'automatic re-checks exhausted: transaction moved to manual review',
      );
    }
  }
}

/**
 * The `UnmatchedPaymentObserved` record of an answer about a candidate: what the provider
 * confirmed (`payment`, amounts in minor units) and, for `closed`, the operator's reason. The
 * payer's email and phone are only as `customer` gives them, sealed and masked by the
 * {@link CustomerDataSealer} (docs/privacy.md, "Crypto-shredding"): never `payment.customer`'s
 * plaintext.
 */
function observationOf(
  candidate: UnmatchedCandidate,
  customer: SealedCustomer,
  o: {
    eventId: string;
    at: number;
    causationId: string;
    observation: UnmatchedPaymentObservedV1['observation'];
    verdict: UnmatchedPaymentObservedV1['verdict'];
    providerStatus: string | null;
    payment: UnmatchedPayment | null;
    close?: { reason: UnmatchedCloseReason; note: string | null; by: string };
  },
): UnmatchedPaymentObservedV1 {
  return {
    event_id: o.eventId,
    occurred_at: o.at,
    correlation_id: candidate.correlationId,
    causation_id: o.causationId,
    reference: candidate.reference,
    provider: candidate.provider,
    observation: o.observation,
    verdict: o.verdict,
    provider_status: o.providerStatus,
    amount_minor: o.payment?.amountMinor ?? null,
    currency: o.payment?.currency ?? null,
    customer_email: customer.customer_email,
    customer_phone: customer.customer_phone,
    customer_email_masked: customer.customer_email_masked,
    customer_phone_masked: customer.customer_phone_masked,
    terms_verified: o.payment?.termsVerified ?? false,
    provider_transaction_id: o.payment?.providerTransactionId ?? null,
    close_reason: o.close?.reason ?? null,
    close_note: o.close?.note ?? null,
    closed_by: o.close?.by ?? null,
  };
}

/** Errors no retry can fix: a permanent message error or a broken business rule. */
function isPermanentFailure(error: unknown): boolean {
  return isPermanentError(error);
}

/** Whether two states would store the same row (what `saveMany` writes). */
function sameState(a: RegisteredTransaction, b: RegisteredTransaction): boolean {
  return a.status === b.status && a.entitlement === b.entitlement && a.completedAt === b.completedAt && a.outcomes === b.outcomes;
}
