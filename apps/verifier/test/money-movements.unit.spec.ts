/**
 * The verifier reading a settled payment's refunds, disputes and reversal
 * (`apps/verifier/src/money-movements.ts`, `VerificationService`): which triggers read them
 * (`readsMovements`, the whole truth table), and, over the in-memory store and a fake provider
 * that can read movements, that a money notification for a settled payment publishes one
 * `MoneyMovementsObserved` with what the adapter read, while any other trigger, a payment not yet
 * settled, or an adapter that cannot read movements publishes none.
 */
import { describe, expect, it } from 'vitest';
import { TRANSACTION_STATUSES, VERIFICATION_TRIGGERS, type MoneyMovementObservation, type ProviderVerdict } from '@settle/domain';
import type { ConsensusResultV1, MoneyMovementsObservedV1, TypedEvent } from '@settle/messaging';
import { createLogger, deterministicId } from '@settle/platform';
import {
  canReadMovements,
  FakePaymentProvider,
  type MoneyMovementReader,
  type PaymentMovements,
  type PaymentProvider,
  type VerificationRequest,
} from '@settle/providers';
import { readsMovements } from '../src/money-movements.js';
import { InMemoryVerificationStore } from '../src/verification-store.memory.js';
import { VerificationService } from '../src/verification.service.js';
import { batchOf, fresh, registered, requested, webhook } from './messages.js';

const NOW = Date.UTC(2026, 0, 15, 12);

describe('readsMovements', () => {
  /** Every combination that reads the payment's money, and nothing else does. */
  const READS = new Set(
    ['SETTLED_CONSENSUS', 'STATE_MISMATCH'].flatMap((status) => [
      `${status}|webhook_received|true`,
      ...['webhook_signature_rejected', 'admin_reconciliation', 'reconciliation'].flatMap((trigger) => [
        `${status}|${trigger}|true`,
        `${status}|${trigger}|false`,
      ]),
    ]),
  );

  it('reads only for a payment whose money arrived, on a money notification, a rejected webhook or a reconciliation', () => {
    expect(READS.size).toBe(14);
    let reads = 0;
    for (const status of TRANSACTION_STATUSES) {
      for (const trigger of VERIFICATION_TRIGGERS) {
        for (const movement of [true, false]) {
          const expected = READS.has(`${status}|${trigger}|${movement}`);
          expect(readsMovements(status, trigger, movement), `${status} ${trigger} movement=${movement}`).toBe(expected);
          if (expected) reads++;
        }
      }
    }
    expect(reads).toBe(READS.size);
  });
});

/** A fake Paystack adapter that also reads refunds and disputes: scripted per reference, every read recorded. */
class MovementFakeProvider extends FakePaymentProvider implements MoneyMovementReader {
  readonly movementCalls: string[] = [];
  private readonly movements = new Map<string, PaymentMovements>();

  scriptMovements(reference: string, movements: PaymentMovements): this {
    this.movements.set(reference, movements);
    return this;
  }

  async movementsOf(reference: string): Promise<PaymentMovements> {
    this.movementCalls.push(reference);
    return Promise.resolve(this.movements.get(reference) ?? { observations: [] });
  }
}

function harness(provider: PaymentProvider) {
  const store = new InMemoryVerificationStore();
  let wakes = 0;
  const service = new VerificationService(
    store,
    new Map([['paystack', provider]]),
    { wake: () => void wakes++ },
    createLogger('verifier-unit', 'fatal'),
    undefined,
    {
      clock: () => NOW,
    },
  );
  const of = <T>(type: string, reference: string) =>
    store.outbox.filter((m) => m.type === type && m.payload.reference === reference).map((m) => m.payload as T);
  return {
    service,
    store,
    wakes: () => wakes,
    movements: (reference: string) => of<MoneyMovementsObservedV1>('MoneyMovementsObserved', reference),
    results: (reference: string) => of<ConsensusResultV1>('ConsensusResult', reference),
  };
}

const paid = (request: VerificationRequest, amountMinor = request.expectation!.amountMinor): ProviderVerdict => ({
  kind: 'cleared',
  observation: {
    reference: request.reference,
    amountMinor,
    currency: request.expectation!.currency,
    customer: { email: request.expectation!.customer.email },
    providerStatus: 'success',
  },
});

/** A signed Paystack webhook of the given event type. */
function webhookOf(reference: string, eventType: string): TypedEvent {
  const hook = webhook(reference);
  if (hook.type !== 'ProviderWebhookReceived') throw new Error('unexpected test message');
  return { ...hook, payload: { ...hook.payload, provider_event_type: eventType } };
}

/** What Paystack holds about a payment's money: a full refund and an open dispute. */
function heldFor(reference: string): MoneyMovementObservation[] {
  return [
    {
      kind: 'refund',
      providerId: '1234567',
      paymentReference: reference,
      amountMinor: 250_000,
      currency: 'NGN',
      providerStatus: 'processed',
      createdAt: NOW - 60_000,
      status: 'succeeded',
    },
    {
      kind: 'dispute',
      providerId: '2867',
      paymentReference: reference,
      amountMinor: 250_000,
      currency: 'NGN',
      providerStatus: 'awaiting-merchant-feedback',
      createdAt: NOW - 30_000,
      status: 'open',
      reason: 'fraudulent',
    },
  ];
}

/** A provider that settles `reference` and holds {@link heldFor} about its money. */
function settlingProvider(reference: string) {
  return new MovementFakeProvider('paystack').script(reference, (request) => paid(request)).scriptMovements(reference, { observations: heldFor(reference) });
}

describe('VerificationService: the money of a settled payment', () => {
  it('the fake adapter can read movements (the premise of these tests), the plain fake cannot', () => {
    expect(canReadMovements(new MovementFakeProvider())).toBe(true);
    expect(canReadMovements(new FakePaymentProvider())).toBe(false);
  });

  it('publishes one MoneyMovementsObserved with what the adapter read, on a Paystack refund.processed for a settled payment', async () => {
    const [ref] = fresh(1) as [string];
    const provider = settlingProvider(ref).scriptMovements(ref, { observations: heldFor(ref), skipped: [{ index: 2, id: '99', reason: 'unknown status' }] });
    const { service, store, movements, results, wakes } = harness(provider);
    expect(await service.handleBatch(batchOf([registered(ref), webhook(ref)]))).toEqual([]);
    expect(store.get(ref)?.state).toMatchObject({ status: 'SETTLED_CONSENSUS', outcomes: 1 });
    expect(wakes()).toBe(1);

    const refundHook = webhookOf(ref, 'refund.processed');
    expect(await service.handleBatch(batchOf([refundHook]))).toEqual([]);
    expect(provider.movementCalls).toEqual([ref]);
    expect(provider.calls).toHaveLength(1);
    expect(wakes()).toBe(2);
    const eventId = deterministicId('MoneyMovementsObserved', refundHook.payload.event_id);
    expect(movements(ref)).toEqual([
      {
        event_id: eventId,
        occurred_at: NOW,
        correlation_id: `corr-${ref}`,
        causation_id: refundHook.payload.event_id,
        reference: ref,
        provider: 'paystack',
        trigger: 'webhook_received',
        verification_id: eventId,
        movements: [
          {
            kind: 'refund',
            provider_id: '1234567',
            payment_reference: ref,
            amount_minor: 250_000,
            currency: 'NGN',
            provider_status: 'processed',
            status: 'succeeded',
            reason: null,
            created_at: NOW - 60_000,
          },
          {
            kind: 'dispute',
            provider_id: '2867',
            payment_reference: ref,
            amount_minor: 250_000,
            currency: 'NGN',
            provider_status: 'awaiting-merchant-feedback',
            status: 'open',
            reason: 'fraudulent',
            created_at: NOW - 30_000,
          },
        ],
        skipped: 1,
      },
    ]);
    expect(store.outbox.find((m) => m.type === 'MoneyMovementsObserved')?.causationId).toBe(refundHook.payload.event_id);
    // The payment's own state and results do not move: a settled payment stays settled.
    expect(results(ref)).toHaveLength(1);
    expect(store.get(ref)?.state).toMatchObject({ status: 'SETTLED_CONSENSUS', outcomes: 1 });
  });

  it('reads once for a redelivered notification (the inbox skips it), and again for a new one', async () => {
    const [ref] = fresh(1) as [string];
    const provider = settlingProvider(ref);
    const { service, movements } = harness(provider);
    await service.handleBatch(batchOf([registered(ref), webhook(ref)]));
    const dispute = webhookOf(ref, 'charge.dispute.create');
    expect(await service.handleBatch(batchOf([dispute, dispute]))).toEqual([]);
    expect(await service.handleBatch(batchOf([dispute]))).toEqual([]);
    expect(provider.movementCalls).toEqual([ref]);
    expect(await service.handleBatch(batchOf([webhookOf(ref, 'charge.dispute.resolve')]))).toEqual([]);
    expect(provider.movementCalls).toEqual([ref, ref]);
    expect(movements(ref)).toHaveLength(2);
  });

  it('asks nothing and publishes nothing for a charge.success on the settled payment', async () => {
    const [ref] = fresh(1) as [string];
    const provider = settlingProvider(ref);
    const { service, movements, results, wakes } = harness(provider);
    await service.handleBatch(batchOf([registered(ref), webhook(ref)]));
    expect(await service.handleBatch(batchOf([webhook(ref), requested(ref, 'sweeper_orphaned'), requested(ref, 'customer_returned')]))).toEqual([]);
    expect(provider.movementCalls).toEqual([]);
    expect(provider.calls).toHaveLength(1);
    expect(movements(ref)).toEqual([]);
    expect(results(ref)).toHaveLength(1);
    expect(wakes()).toBe(1);
  });

  it.each(['webhook_signature_rejected', 'admin_reconciliation', 'reconciliation'] as const)(
    'reads the movements on a VerificationRequested with trigger %s',
    async (trigger) => {
      const [ref] = fresh(1) as [string];
      const provider = settlingProvider(ref);
      const { service, movements } = harness(provider);
      await service.handleBatch(batchOf([registered(ref), webhook(ref)]));
      const request = requested(ref, trigger);
      expect(await service.handleBatch(batchOf([request]))).toEqual([]);
      expect(provider.movementCalls).toEqual([ref]);
      expect(movements(ref).map((m) => [m.trigger, m.causation_id, m.movements.length])).toEqual([[trigger, request.payload.event_id, 2]]);
    },
  );

  it('verifies a payment not yet settled on a refund notification, and once it settled reads its money in the same step', async () => {
    const [ref] = fresh(1) as [string];
    const provider = settlingProvider(ref);
    const { service, store, movements, results } = harness(provider);
    const notification = webhookOf(ref, 'refund.processed');
    expect(await service.handleBatch(batchOf([registered(ref), notification]))).toEqual([]);
    expect(provider.calls).toHaveLength(1);
    expect(results(ref).map((r) => [r.trigger, r.outcome])).toEqual([['webhook_received', 'SETTLED_CONSENSUS']]);
    expect(store.get(ref)?.state.status).toBe('SETTLED_CONSENSUS');
    // A refunded PaymentIntent stays `succeeded`: without this read nothing would ever see the refund.
    expect(provider.movementCalls).toEqual([ref]);
    expect(movements(ref).map((m) => [m.trigger, m.causation_id])).toEqual([['webhook_received', notification.payload.event_id]]);
  });

  it('makes no unmatched payment candidate of a refund or dispute notification for a reference with no checkout', async () => {
    const [ref] = fresh(1) as [string];
    const provider = settlingProvider(ref);
    const { service, store, movements } = harness(provider);
    expect(await service.handleBatch(batchOf([webhookOf(ref, 'refund.processed'), webhookOf(ref, 'charge.dispute.create')]))).toEqual([]);
    expect(provider.calls).toEqual([]);
    expect(provider.movementCalls).toEqual([]);
    expect(movements(ref)).toEqual([]);
    expect((await store.loadCandidates([ref])).get(ref)).toBeUndefined();
  });

  it('reads the movements of a State Mismatch payment (its money arrived), never of a declined one', async () => {
    const [mismatch, declined] = fresh(2) as [string, string];
    const provider = new MovementFakeProvider('paystack')
      .script(mismatch, (request) => paid(request, 100))
      .script(declined, { kind: 'declined', providerStatus: 'failed', reason: 'Declined' });
    const { service, store, movements } = harness(provider);
    await service.handleBatch(batchOf([registered(mismatch), webhook(mismatch), registered(declined), webhook(declined)]));
    expect(store.get(mismatch)?.state.status).toBe('STATE_MISMATCH');
    expect(store.get(declined)?.state.status).toBe('FAILED_DECLINED');
    expect(await service.handleBatch(batchOf([webhookOf(mismatch, 'refund.processed'), webhookOf(declined, 'refund.processed')]))).toEqual([]);
    expect(provider.movementCalls).toEqual([mismatch]);
    expect(movements(mismatch)).toHaveLength(1);
    expect(movements(declined)).toEqual([]);
  });

  it('publishes nothing when the adapter cannot read movements, and handles the notification (no retry)', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => paid(request));
    const { service, store, movements, wakes } = harness(provider);
    await service.handleBatch(batchOf([registered(ref), webhook(ref)]));
    const outbox = store.outbox.length;
    expect(await service.handleBatch(batchOf([webhookOf(ref, 'refund.processed'), requested(ref, 'webhook_signature_rejected')]))).toEqual([]);
    expect(provider.calls).toHaveLength(1);
    expect(movements(ref)).toEqual([]);
    expect(store.outbox).toHaveLength(outbox);
    expect(wakes()).toBe(1);
  });

  it('fails the batch as transient when the movements read throws, and reads again when it is retried', async () => {
    const [ref] = fresh(1) as [string];
    let down = true;
    class Flaky extends MovementFakeProvider {
      override async movementsOf(reference: string): Promise<PaymentMovements> {
        if (down) throw new Error('connection reset');
        return super.movementsOf(reference);
      }
    }
    const provider = new Flaky('paystack').script(ref, (request) => paid(request)).scriptMovements(ref, { observations: heldFor(ref) });
    const { service, movements } = harness(provider);
    await service.handleBatch(batchOf([registered(ref), webhook(ref)]));
    const batch = batchOf([webhookOf(ref, 'refund.processed')]);
    await expect(service.handleBatch(batch)).rejects.toThrow('connection reset');
    expect(movements(ref)).toEqual([]);
    down = false;
    expect(await service.handleBatch(batch)).toEqual([]);
    expect(movements(ref)).toHaveLength(1);
  });
});
