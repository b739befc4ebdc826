import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decide,
  fold,
  initialState,
  isRegistered,
  parseAccessPeriod,
  type ProviderVerdict,
  type RegisteredTransaction,
  type TransactionState,
} from '@settle/domain';
import type { OutboxMessage } from '@settle/messaging';
import { toConsensusResult } from '../src/consensus-result.js';
import { ConcurrentUpdateError, type UnmatchedCandidate, type VerificationStore } from '../src/verification-store.port.js';

/** A store to test, and how to read the outbox messages it committed for a reference. */
export interface StoreSubject {
  store: VerificationStore;
  /** The outbox messages committed for a reference: `type:outcome`, in commit order. */
  outboxed(reference: string): Promise<string[]>;
}

/** The state narrowed to a registered transaction (what the store persists). */
function registeredOnly(state: TransactionState): RegisteredTransaction {
  if (!isRegistered(state)) throw new Error('expected a registered transaction');
  return state;
}

function registeredState(reference: string): RegisteredTransaction {
  const expectation = {
    reference,
    provider: 'paystack' as const,
    amountMinor: 250_000,
    currency: 'NGN',
    userId: `user-${reference}`,
    customer: { email: `${reference}@example.com` },
    entitlement: 'pro',
    accessPeriod: parseAccessPeriod('P1M'),
  };
  return registeredOnly(fold(decide({ type: 'RegisterCheckout', data: { expectation, registeredAt: Date.now() } }, initialState()), initialState()));
}

/** Settles a registered state and builds its consensus result, as the service does. */
function settle(before: RegisteredTransaction): { after: RegisteredTransaction; message: OutboxMessage } {
  const e = before.expectation;
  const verdict: ProviderVerdict = {
    kind: 'cleared',
    observation: { reference: e.reference, amountMinor: e.amountMinor, currency: e.currency, customer: e.customer, providerStatus: 'success' },
  };
  const verificationId = randomUUID();
  const events = decide(
    { type: 'RecordVerification', data: { reference: e.reference, verificationId, trigger: 'webhook_received', verdict, verifiedAt: Date.now() } },
    before,
  );
  const after = registeredOnly(fold(events, before));
  const payload = toConsensusResult({
    resultId: verificationId,
    causationId: randomUUID(),
    correlationId: `corr-${e.reference}`,
    trigger: 'webhook_received',
    verdict,
    before,
    after,
    events,
    decidedAt: Date.now(),
  });
  return { after, message: { type: 'ConsensusResult', payload, causationId: payload.causation_id } };
}

const reference = () => `ref_${randomUUID().slice(0, 12)}`;
const nothing = { handled: [], inserts: [], saves: [], messages: [] };

/**
 * The verifier store's contract (`VerificationStore`): the PostgreSQL store and the in-memory
 * one answer the same and refuse the same conflicts, all or nothing.
 */
export function verificationStoreContract(name: string, make: () => StoreSubject): void {
  describe(`verification store contract: ${name}`, () => {
    it('stores a registration, its inbox id and its state change with the result, and reads them back', async () => {
      const { store, outboxed } = make();
      const ref = reference();
      const state = registeredState(ref);
      const [registration, trigger] = [randomUUID(), randomUUID()];
      expect(await store.loadMany([ref])).toEqual(new Map());
      await store.commit({ ...nothing, handled: [registration], inserts: [{ state, correlationId: `corr-${ref}` }] });
      expect(await store.loadMany([ref, reference()])).toEqual(new Map([[ref, { state, correlationId: `corr-${ref}` }]]));
      expect(await store.processedAmong([registration, trigger])).toEqual(new Set([registration]));

      const { after, message } = settle(state);
      await store.commit({ ...nothing, handled: [trigger], saves: [{ state: after, previousOutcomes: state.outcomes }], messages: [message] });
      expect((await store.loadMany([ref])).get(ref)?.state).toMatchObject({ status: 'SETTLED_CONSENSUS', entitlement: 'UNLOCKED', outcomes: 1 });
      expect(await store.processedAmong([registration, trigger])).toEqual(new Set([registration, trigger]));
      expect(await outboxed(ref)).toEqual(['ConsensusResult:SETTLED_CONSENSUS']);
    });

    it('refuses a message id processed before, storing nothing of that commit', async () => {
      const { store, outboxed } = make();
      const ref = reference();
      const state = registeredState(ref);
      const id = randomUUID();
      await store.commit({ ...nothing, handled: [id], inserts: [{ state, correlationId: 'c' }] });
      const { after, message } = settle(state);
      await expect(store.commit({ handled: [id], inserts: [], saves: [{ state: after, previousOutcomes: 0 }], messages: [message] })).rejects.toBeInstanceOf(
        ConcurrentUpdateError,
      );
      expect((await store.loadMany([ref])).get(ref)?.state.status).toBe('PENDING');
      expect(await outboxed(ref)).toEqual([]);
    });

    it('refuses a second registration of a reference and a save on a stale outcome count', async () => {
      const { store } = make();
      const ref = reference();
      const state = registeredState(ref);
      await store.commit({ ...nothing, handled: [randomUUID()], inserts: [{ state, correlationId: 'c' }] });
      await expect(store.commit({ ...nothing, handled: [randomUUID()], inserts: [{ state, correlationId: 'c' }] })).rejects.toBeInstanceOf(
        ConcurrentUpdateError,
      );
      const { after } = settle(state);
      await store.commit({ ...nothing, handled: [randomUUID()], saves: [{ state: after, previousOutcomes: 0 }] });
      const error = await store.commit({ ...nothing, handled: [randomUUID()], saves: [{ state: after, previousOutcomes: 0 }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConcurrentUpdateError);
      expect(error).toMatchObject({ code: 'VERIFICATION.CONCURRENT_UPDATE', kind: 'unavailable' });
    });

    it('writes unmatched payment candidates with the commit, whole, and reads them back (docs/unmatched-payments.md)', async () => {
      const { store } = make();
      const ref = reference();
      const candidate: UnmatchedCandidate = {
        reference: ref,
        provider: 'stripe',
        correlationId: `corr-${ref}`,
        status: 'candidate',
        firstSeenAt: 1_700_000_000_000,
        payment: null,
        matchedAt: null,
      };
      await store.commit({ ...nothing, handled: [randomUUID()], candidates: [candidate] });
      expect(await store.loadCandidates([ref, reference()])).toEqual(new Map([[ref, candidate]]));
      const recorded: UnmatchedCandidate = {
        ...candidate,
        status: 'recorded',
        payment: {
          provider: 'stripe',
          reference: ref,
          amountMinor: 1_999,
          currency: 'USD',
          customer: { email: 'payer@example.com', phone: null },
          termsVerified: true,
          providerStatus: 'succeeded',
          providerTransactionId: ref,
          verifiedAt: 1_700_000_050_000,
        },
      };
      await store.commit({ ...nothing, handled: [randomUUID()], candidates: [recorded] });
      const matched = { ...recorded, status: 'matched' as const, matchedAt: 1_700_000_090_000 };
      await store.commit({ ...nothing, handled: [randomUUID()], candidates: [matched] });
      expect((await store.loadCandidates([ref])).get(ref)).toEqual(matched);
      // All or nothing: a refused commit writes no candidate.
      const other = { ...candidate, reference: reference() };
      const used = randomUUID();
      await store.commit({ ...nothing, handled: [used] });
      await expect(store.commit({ ...nothing, handled: [used], candidates: [other] })).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect((await store.loadCandidates([other.reference])).size).toBe(0);
    });
  });
}
