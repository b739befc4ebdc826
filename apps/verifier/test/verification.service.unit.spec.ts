/**
 * The verifier's application service below end-to-end: the real decider and consensus, over
 * the in-memory store and the fake provider (no Kafka, no PostgreSQL, no HTTP).
 */
import { describe, expect, it } from 'vitest';
import type { ProviderVerdict } from '@settle/domain';
import type { ConsensusResultV1, UnmatchedPaymentObservedV1 } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { FakePaymentProvider, type PaymentProvider, type VerificationRequest } from '@settle/providers';
import { generateKey, InMemorySubjectKeyStore, isSealedValue, MasterKeyRing, SubjectKeys } from '@settle/vault';
import { SubjectKeysCustomerDataSealer, type CustomerDataSealer } from '../src/customer-data-sealer.js';
import { InMemoryVerificationStore } from '../src/verification-store.memory.js';
import { ConcurrentUpdateError } from '../src/verification-store.port.js';
import { VerificationService } from '../src/verification.service.js';
import { batchOf, closeRequested, fresh, registered, registeredWith, requested, webhook } from './messages.js';

const NOW = Date.UTC(2026, 0, 15, 12);

/** The customers' subject keys the harness seals under (docs/privacy.md, "Crypto-shredding"), in memory. */
const subjectKeys = new SubjectKeys(new InMemorySubjectKeyStore(), MasterKeyRing.from([['v1', generateKey()]]), generateKey());

function harness(provider: PaymentProvider = new FakePaymentProvider('paystack'), store = new InMemoryVerificationStore()) {
  let wakes = 0;
  const service = new VerificationService(
    store,
    new Map([['paystack', provider]]),
    { wake: () => void wakes++ },
    createLogger('verifier-unit', 'fatal'),
    undefined,
    {
      clock: () => NOW,
      sealer: new SubjectKeysCustomerDataSealer(subjectKeys),
    },
  );
  const results = (reference: string) =>
    store.outbox.filter((m) => m.type === 'ConsensusResult' && m.payload.reference === reference).map((m) => m.payload as ConsensusResultV1);
  return { service, store, results, wakes: () => wakes };
}

/** What Paystack answers for a paid checkout of `registered()`: 250 000 kobo, the customer's email. */
const paid = (request: VerificationRequest, fields: { amountMinor?: number } = {}): ProviderVerdict => ({
  kind: 'cleared',
  observation: {
    reference: request.reference,
    amountMinor: fields.amountMinor ?? request.expectation!.amountMinor,
    currency: request.expectation!.currency,
    customer: { email: request.expectation!.customer.email },
    providerStatus: 'success',
  },
});

describe('VerificationService over the fake provider and the in-memory store', () => {
  it('settles a paid checkout: one provider query, the state settled and unlocked, one consensus result in the outbox, the relay woken', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => paid(request));
    const { service, store, results, wakes } = harness(provider);
    expect(await service.handleBatch(batchOf([registered(ref), webhook(ref)]))).toEqual([]);
    expect(provider.calls.map((c) => [c.reference, c.expectation!.amountMinor])).toEqual([[ref, 250_000]]);
    expect(store.get(ref)?.state).toMatchObject({ status: 'SETTLED_CONSENSUS', entitlement: 'UNLOCKED', outcomes: 1 });
    expect(results(ref)).toEqual([
      expect.objectContaining({
        reference: ref,
        trigger: 'webhook_received',
        verdict: 'cleared',
        outcome: 'SETTLED_CONSENSUS',
        state_before: 'PENDING',
        state_after: 'SETTLED_CONSENSUS',
        amount_minor: 250_000,
        observed_amount_minor: 250_000,
        occurred_at: NOW,
      }),
    ]);
    expect(wakes()).toBe(1);
  });

  it('records a declined payment as FAILED_DECLINED, the entitlement locked', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, { kind: 'declined', providerStatus: 'failed', reason: 'Declined' });
    const { service, store, results } = harness(provider);
    expect(await service.handleBatch(batchOf([registered(ref), webhook(ref)]))).toEqual([]);
    expect(store.get(ref)?.state).toMatchObject({ status: 'FAILED_DECLINED', entitlement: 'LOCKED' });
    expect(results(ref).map((r) => [r.verdict, r.outcome, r.state_after])).toEqual([['declined', 'FAILED_DECLINED', 'FAILED_DECLINED']]);
  });

  it('detects an amount mismatch: funds cleared for another amount is STATE_MISMATCH, nothing unlocked, the failed check recorded', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => paid(request, { amountMinor: 100 }));
    const { service, store, results } = harness(provider);
    expect(await service.handleBatch(batchOf([registered(ref), webhook(ref)]))).toEqual([]);
    expect(store.get(ref)?.state).toMatchObject({ status: 'STATE_MISMATCH', entitlement: 'LOCKED' });
    const [result] = results(ref);
    expect(result).toMatchObject({ outcome: 'STATE_MISMATCH', observed_amount_minor: 100, amount_minor: 250_000 });
    expect(result!.checks.filter((c) => !c.passed).map((c) => c.check)).toEqual(['amount']);
  });

  it('handles a duplicate message once: within a batch, and when the batch is redelivered the inbox skips it without a provider query', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => paid(request));
    const { service, results } = harness(provider);
    const hook = webhook(ref);
    const batch = batchOf([registered(ref), hook, hook]);
    expect(await service.handleBatch(batch)).toEqual([]);
    expect(await service.handleBatch(batch)).toEqual([]);
    expect(provider.calls).toHaveLength(1);
    expect(results(ref)).toHaveLength(1);
  });

  it('keeps the state when the provider is unreachable (a timeout is unknown, not failed), and settles at a later trigger', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, { kind: 'unreachable', cause: 'PROVIDER.TIMEOUT' }, (request) => paid(request));
    const { service, store, results } = harness(provider);
    expect(await service.handleBatch(batchOf([registered(ref), webhook(ref)]))).toEqual([]);
    expect(store.get(ref)?.state).toMatchObject({ entitlement: 'LOCKED', outcomes: 0 });
    expect(store.get(ref)?.state.status).not.toMatch(/SETTLED|FAILED|MISMATCH/);
    expect(results(ref).map((r) => [r.verdict, r.outcome, r.detail])).toEqual([['unreachable', 'UNCHANGED', 'PROVIDER.TIMEOUT']]);
    expect(await service.handleBatch(batchOf([requested(ref, 'sweeper_orphaned')]))).toEqual([]);
    expect(store.get(ref)?.state.status).toBe('SETTLED_CONSENSUS');
  });

  it('throws on a provider that is down in a way it cannot report (a rejected call): nothing of that reference committed, the retried batch queries again', async () => {
    const [ref, other] = fresh(2) as [string, string];
    let down = true;
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => {
      if (down) throw new Error('connection reset');
      return paid(request);
    });
    provider.script(other, (request) => paid(request));
    const { service, store } = harness(provider);
    const batch = batchOf([registered(ref), registered(other), webhook(ref), webhook(other)]);
    await expect(service.handleBatch(batch)).rejects.toThrow('connection reset');
    expect(store.get(ref)?.state.status).toBe('PENDING');
    expect(store.get(other)?.state.status).toBe('SETTLED_CONSENSUS');

    down = false;
    expect(await service.handleBatch(batch)).toEqual([]);
    expect(provider.callsFor(ref)).toHaveLength(2);
    expect(provider.callsFor(other)).toHaveLength(1);
    expect(store.get(ref)?.state.status).toBe('SETTLED_CONSENSUS');
  });

  it('names a permanently bad message for the dead-letter topic and commits the rest: a provider with no adapter, a bad access period', async () => {
    const [ref, stray, odd] = fresh(3) as [string, string, string];
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => paid(request));
    const { service, store } = harness(provider);
    const failed = await service.handleBatch(
      batchOf([registered(ref), registeredWith(stray, { provider: 'stripe' }), registeredWith(odd, { access_period: 'forever' }), webhook(ref)]),
    );
    expect(failed.map((f) => [f.index, (f.error as { code?: string }).code])).toEqual([
      [1, 'VERIFICATION.UNSUPPORTED_PROVIDER'],
      [2, 'VERIFICATION.INVALID_ACCESS_PERIOD'],
    ]);
    expect(store.get(ref)?.state.status).toBe('SETTLED_CONSENSUS');
    expect(store.get(stray)).toBeUndefined();
    expect(store.get(odd)).toBeUndefined();
  });

  it('leaves a trigger for a reference not registered yet to the sweeper: no provider query, nothing stored', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack');
    const { service, store, results } = harness(provider);
    expect(await service.handleBatch(batchOf([webhook(ref)]))).toEqual([]);
    expect(provider.calls).toEqual([]);
    expect(store.get(ref)).toBeUndefined();
    expect(results(ref)).toEqual([]);
  });

  it('fails the batch as transient when another member committed the same messages first, and the retry finds them done', async () => {
    const [ref] = fresh(1) as [string];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = new FakePaymentProvider('paystack').script(ref, async (request) => {
      await held;
      return paid(request);
    });
    const quick = new FakePaymentProvider('paystack').script(ref, (request) => paid(request));
    const store = new InMemoryVerificationStore();
    const batch = batchOf([registered(ref), webhook(ref)]);
    const first = harness(slow, store).service.handleBatch(batch);
    expect(await harness(quick, store).service.handleBatch(batch)).toEqual([]);
    release();
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect(await harness(slow, store).service.handleBatch(batch)).toEqual([]);
    expect(slow.calls).toHaveLength(1);
    expect(store.outbox).toHaveLength(1);
  });
});

describe('payments with no checkout (docs/unmatched-payments.md)', () => {
  const observations = (store: InMemoryVerificationStore, reference: string) =>
    store.outbox.filter((m) => m.type === 'UnmatchedPaymentObserved' && m.payload.reference === reference).map((m) => m.payload as UnmatchedPaymentObservedV1);

  it('a signed webhook makes a candidate and asks the provider nothing; after the grace period the provider is asked with no terms and the cleared payment is recorded', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, {
      kind: 'cleared',
      observation: {
        reference: ref,
        amountMinor: 500_000,
        currency: 'NGN',
        customer: { email: 'payer@example.com' },
        providerStatus: 'success',
        providerTransactionId: '4099',
      },
    });
    const { service, store } = harness(provider);
    expect(await service.handleBatch(batchOf([webhook(ref)]))).toEqual([]);
    expect(provider.calls).toEqual([]);
    expect((await store.loadCandidates([ref])).get(ref)).toMatchObject({ status: 'candidate', provider: 'paystack', payment: null });

    expect(await service.handleBatch(batchOf([requested(ref, 'unmatched_payment')]))).toEqual([]);
    expect(provider.calls).toEqual([{ reference: ref, expectation: null }]);
    expect((await store.loadCandidates([ref])).get(ref)).toMatchObject({
      status: 'recorded',
      payment: {
        amountMinor: 500_000,
        currency: 'NGN',
        customer: { email: 'payer@example.com', phone: null },
        termsVerified: true,
        providerTransactionId: '4099',
      },
    });
    expect(observations(store, ref)).toEqual([
      expect.objectContaining({
        observation: 'recorded',
        verdict: 'cleared',
        amount_minor: 500_000,
        currency: 'NGN',
        customer_email: expect.stringMatching(/^sealed:v1:/),
        customer_phone: null,
        customer_email_masked: 'p•••@example.com',
        customer_phone_masked: null,
        terms_verified: true,
      }),
    ]);
    // Nothing is granted: no consensus result, no transaction.
    expect(store.outbox.filter((m) => m.type === 'ConsensusResult')).toEqual([]);
    expect(store.get(ref)).toBeUndefined();
    // Answered once: a later request asks nothing more.
    expect(await service.handleBatch(batchOf([requested(ref, 'unmatched_payment')]))).toEqual([]);
    expect(provider.calls).toHaveLength(1);
  });

  it("the record leaves the verifier with the payer's email and phone sealed under the customer's key and masked, never in plaintext (docs/privacy.md)", async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, {
      kind: 'cleared',
      observation: {
        reference: ref,
        amountMinor: 500_000,
        currency: 'NGN',
        customer: { email: 'Ada.Payer@Example.com', phone: '+2348012345678' },
        providerStatus: 'success',
      },
    });
    const { service, store } = harness(provider);
    await service.handleBatch(batchOf([webhook(ref), requested(ref, 'unmatched_payment')]));
    await service.handleBatch(batchOf([closeRequested(ref)]));
    const records = observations(store, ref);
    expect(records.map((o) => o.observation)).toEqual(['recorded', 'closed']);
    // The subject is the normalised email; both values open with its key, each in its own field.
    const key = await subjectKeys.keyFor({ kind: 'customer', id: 'ada.payer@example.com' });
    for (const record of records) {
      expect(isSealedValue(record.customer_email!)).toBe(true);
      expect(isSealedValue(record.customer_phone!)).toBe(true);
      expect(key.reveal('customer_email', record.customer_email!)).toBe('Ada.Payer@Example.com');
      expect(key.reveal('customer_phone', record.customer_phone!)).toBe('+2348012345678');
      expect(record).toMatchObject({ customer_email_masked: 'A•••@Example.com', customer_phone_masked: '+234•••678' });
      expect(JSON.stringify(record)).not.toMatch(/ada\.payer|8012345678/i);
    }
  });

  it('without a privacy vault the record holds the masked forms only, nothing sealed and no plaintext', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, {
      kind: 'cleared',
      observation: { reference: ref, amountMinor: 100, currency: 'NGN', customer: { email: 'ada@example.com' }, providerStatus: 'success' },
    });
    const store = new InMemoryVerificationStore();
    const service = new VerificationService(
      store,
      new Map([['paystack', provider]]),
      { wake: () => undefined },
      createLogger('verifier-unit', 'fatal'),
      undefined,
      {
        clock: () => NOW,
      },
    );
    await service.handleBatch(batchOf([webhook(ref), requested(ref, 'unmatched_payment')]));
    expect(observations(store, ref)).toEqual([
      expect.objectContaining({ customer_email: null, customer_phone: null, customer_email_masked: 'a•••@example.com', customer_phone_masked: null }),
    ]);
  });

  it('an unresolved answer is published for the sweeper and leaves the candidate open; a decline closes it', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, { kind: 'clearing', providerStatus: 'ongoing' });
    const { service, store } = harness(provider);
    await service.handleBatch(batchOf([webhook(ref), requested(ref, 'unmatched_payment')]));
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('candidate');
    provider.script(ref, { kind: 'declined', providerStatus: 'failed', reason: 'Declined' });
    await service.handleBatch(batchOf([requested(ref, 'unmatched_payment')]));
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('declined');
    // A reference the provider does not know after the grace period is closed too: nothing to check again.
    const [unknown] = fresh(1) as [string];
    provider.script(unknown, { kind: 'not_found' });
    await service.handleBatch(batchOf([webhook(unknown), requested(unknown, 'unmatched_payment')]));
    expect((await store.loadCandidates([unknown])).get(unknown)?.status).toBe('not_found');
    expect(observations(store, unknown).map((o) => o.observation)).toEqual(['not_found']);
    expect(observations(store, ref).map((o) => [o.observation, o.verdict, o.provider_status])).toEqual([
      ['unresolved', 'clearing', null],
      ['declined', 'declined', 'failed'],
    ]);
  });

  it('a trigger with no signed webhook behind it (a spoofed one) asks the provider nothing', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack');
    const { service, store } = harness(provider);
    await service.handleBatch(batchOf([requested(ref, 'webhook_signature_rejected'), requested(ref, 'unmatched_payment')]));
    expect(provider.calls).toEqual([]);
    expect(store.outbox).toEqual([]);
    expect((await store.loadCandidates([ref])).size).toBe(0);
  });

  it('a checkout registered later closes the recorded payment as matched and is verified at once against the provider answer: four checks as usual', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, {
      kind: 'cleared',
      observation: { reference: ref, amountMinor: 250_000, currency: 'NGN', customer: { email: `${ref}@example.com` }, providerStatus: 'success' },
    });
    const { service, store, results } = harness(provider);
    await service.handleBatch(batchOf([webhook(ref), requested(ref, 'unmatched_payment')]));
    expect(await service.handleBatch(batchOf([registered(ref)]))).toEqual([]);
    expect(provider.calls.map((c) => c.expectation?.amountMinor ?? null)).toEqual([null, 250_000]);
    expect((await store.loadCandidates([ref])).get(ref)).toMatchObject({ status: 'matched' });
    expect(observations(store, ref).map((o) => o.observation)).toEqual(['recorded', 'matched']);
    expect(results(ref)).toEqual([expect.objectContaining({ trigger: 'unmatched_payment', outcome: 'SETTLED_CONSENSUS' })]);
  });

  it('a vault failure while sealing the match changes nothing of the registration: the retried batch registers the checkout, matches the payment and verifies it', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, {
      kind: 'cleared',
      observation: { reference: ref, amountMinor: 250_000, currency: 'NGN', customer: { email: `${ref}@example.com` }, providerStatus: 'success' },
    });
    const store = new InMemoryVerificationStore();
    const keys = new SubjectKeysCustomerDataSealer(subjectKeys);
    let failures = 0;
    const sealer: CustomerDataSealer = {
      seal: (customer) => (failures-- > 0 ? Promise.reject(new Error('privacy vault unavailable')) : keys.seal(customer)),
    };
    const service = new VerificationService(
      store,
      new Map([['paystack', provider]]),
      { wake: () => undefined },
      createLogger('verifier-unit', 'fatal'),
      undefined,
      {
        clock: () => NOW,
        sealer,
      },
    );
    await service.handleBatch(batchOf([webhook(ref), requested(ref, 'unmatched_payment')]));
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('recorded');

    // A second webhook is handled before the registration, so the batch commits part of the reference.
    const batch = batchOf([webhook(ref), registered(ref)]);
    failures = 1;
    await expect(service.handleBatch(batch)).rejects.toThrow('privacy vault unavailable');
    expect(store.get(ref)).toBeUndefined();
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('recorded');

    expect(await service.handleBatch(batch)).toEqual([]);
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('matched');
    expect(observations(store, ref).map((o) => o.observation)).toEqual(['recorded', 'matched']);
    expect(
      store.outbox.filter((m) => m.type === 'ConsensusResult').map((m) => [(m.payload as ConsensusResultV1).trigger, (m.payload as ConsensusResultV1).outcome]),
    ).toEqual([['unmatched_payment', 'SETTLED_CONSENSUS']]);
  });

  it('an operator closes a recorded payment with a reason: closed and published once; a close of a payment not recorded changes nothing', async () => {
    const [ref, other] = fresh(2) as [string, string];
    const provider = new FakePaymentProvider('paystack').script(ref, {
      kind: 'cleared',
      observation: { reference: ref, amountMinor: 100, currency: 'NGN', customer: {}, providerStatus: 'success' },
    });
    const { service, store } = harness(provider);
    await service.handleBatch(batchOf([webhook(ref), requested(ref, 'unmatched_payment')]));
    expect(await service.handleBatch(batchOf([closeRequested(ref), closeRequested(ref), closeRequested(other)]))).toEqual([]);
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('closed');
    expect(observations(store, ref).map((o) => [o.observation, o.close_reason, o.close_note, o.closed_by])).toEqual([
      ['recorded', null, null, null],
      ['closed', 'test_payment', 'QA card', 'ops@example.com'],
    ]);
    expect(observations(store, other)).toEqual([]);
    // A registration after the close is a checkout like any other: nothing to match.
    await service.handleBatch(batchOf([registered(ref)]));
    expect(observations(store, ref)).toHaveLength(2);
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('closed');
  });

  it('a registration racing its webhook within the grace period is a checkout like any other: the candidate is closed silently', async () => {
    const [ref] = fresh(1) as [string];
    const provider = new FakePaymentProvider('paystack').script(ref, (request) => paid(request));
    const { service, store, results } = harness(provider);
    await service.handleBatch(batchOf([webhook(ref)]));
    await service.handleBatch(batchOf([registered(ref), webhook(ref)]));
    expect((await store.loadCandidates([ref])).get(ref)?.status).toBe('matched');
    expect(observations(store, ref)).toEqual([]);
    expect(results(ref).map((r) => [r.trigger, r.outcome])).toEqual([['webhook_received', 'SETTLED_CONSENSUS']]);
  });
});
