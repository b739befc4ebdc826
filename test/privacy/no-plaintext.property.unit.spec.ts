/**
 * No personal value leaves the verifier in plaintext (docs/privacy.md, "Where it is, and how each
 * place is protected"): for generated checkouts and provider answers (the payer's own
 * identifiers, another person's, a payment with no checkout), every record the verifier emits
 * for Kafka, every ledger event made from those records, and every log line the verifier writes
 * at debug level hold the payer's email and phone only masked or sealed.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unmatchedPaymentLedgerEvent } from '@settle/ledger';
import type { BatchItem, ConsensusResultV1, TypedEvent, UnmatchedPaymentObservedV1 } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { FakePaymentProvider } from '@settle/providers';
import { generateKey, InMemorySubjectKeyStore, MasterKeyRing, SubjectKeys } from '@settle/vault';
import { ledgerEventFor } from '../../apps/ledger-projector/src/projection.service.js';
import { SubjectKeysCustomerDataSealer } from '../../apps/verifier/src/customer-data-sealer.js';
import { InMemoryVerificationStore } from '../../apps/verifier/src/verification-store.memory.js';
import { VerificationService } from '../../apps/verifier/src/verification.service.js';

const subjectKeys = new SubjectKeys(new InMemorySubjectKeyStore(), MasterKeyRing.from([['v1', generateKey()]]), generateKey());

/** A person's identifiers: an email (its case as typed) and an E.164 phone of one of the providers' countries. */
const person = fc.record({
  local: fc.stringMatching(/^[a-z][a-z0-9.]{3,14}[a-z0-9]$/),
  domain: fc.constantFrom('example.com', 'mail.example.org', 'payer.example.net'),
  upper: fc.boolean(),
  // Mobile ranges of Nigeria and Kenya (two of the providers' countries), valid for the phone check.
  prefix: fc.constantFrom('+234803', '+234813', '+25471', '+25472'),
  subscriber: fc.stringMatching(/^[0-9]{7}$/),
});
type Person = { email: string; phone: string };
const identifiers = person.map(({ local, domain, upper, prefix, subscriber }): Person => {
  const email = `${local}@${domain}`;
  return { email: upper ? email.toUpperCase() : email, phone: `${prefix}${subscriber}` };
});

/** What the provider reports about the payer: the registered customer, another person, or only one identifier of either. */
const answered = fc.record({
  who: fc.constantFrom('same', 'other'),
  fields: fc.constantFrom('both', 'email', 'phone'),
  amountDelta: fc.constantFrom(0, 0, 100),
});

let seq = 0;
const event = (type: TypedEvent['type'], reference: string, payload: Record<string, unknown>): TypedEvent =>
  ({ type, payload: { event_id: crypto.randomUUID(), occurred_at: Date.now(), correlation_id: `corr-${reference}`, reference, ...payload } }) as TypedEvent;
const batchOf = (events: TypedEvent[]): BatchItem[] =>
  events.map((e, i) => ({ event: e, context: { topic: 't', partition: 0, offset: String(i), key: e.payload.reference, timestamp: 0, headers: {} } }));

/** The plaintext forms of a person's identifiers that must not appear: the email in any case, the phone with and without its +. */
function plaintextOf(p: Person): RegExp[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [new RegExp(escape(p.email), 'i'), new RegExp(escape(p.phone.slice(1)))];
}

describe('the verifier keeps payers’ emails and phones out of Kafka, the ledger and its logs (docs/privacy.md)', () => {
  it('holds for generated checkouts, answers and unmatched payments', async () => {
    await fc.assert(
      fc.asyncProperty(identifiers, identifiers, answered, async (payer, other, answer) => {
        const lines: string[] = [];
        const logs = new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString('utf8'));
            done();
          },
        });
        const reference = `ref_prop_${++seq}`;
        const unmatchedRef = `ref_prop_unm_${seq}`;
        const reported = answer.who === 'same' ? payer : other;
        const customer = {
          ...(answer.fields !== 'phone' ? { email: reported.email } : {}),
          ...(answer.fields !== 'email' ? { phone: reported.phone } : {}),
        };
        const provider = new FakePaymentProvider('paystack')
          .script(reference, (request) => ({
            kind: 'cleared',
            observation: {
              reference,
              amountMinor: request.expectation!.amountMinor + answer.amountDelta,
              currency: 'NGN',
              customer,
              providerStatus: 'success',
            },
          }))
          .script(unmatchedRef, {
            kind: 'cleared',
            observation: { reference: unmatchedRef, amountMinor: 1_000, currency: 'NGN', customer, providerStatus: 'success' },
          });
        const store = new InMemoryVerificationStore();
        const service = new VerificationService(
          store,
          new Map([['paystack', provider]]),
          { wake: () => undefined },
          createLogger('verifier-prop', 'debug', logs),
          undefined,
          {
            sealer: new SubjectKeysCustomerDataSealer(subjectKeys),
          },
        );
        const registered = event('CheckoutRegistered', reference, {
          provider: 'paystack',
          amount_minor: 250_000,
          currency: 'NGN',
          user_id: `user-${seq}`,
          customer_email: payer.email,
          customer_phone: payer.phone,
          entitlement: 'pro',
          access_period: 'P1M',
        });
        const webhook = (ref: string) =>
          event('ProviderWebhookReceived', ref, { provider: 'paystack', provider_event_type: 'charge.success', body_sha256: 'a'.repeat(64) });
        const requested = (ref: string, trigger: string) => event('VerificationRequested', ref, { trigger, requested_by: 'test' });
        expect(await service.handleBatch(batchOf([registered, webhook(reference)]))).toEqual([]);
        expect(await service.handleBatch(batchOf([webhook(unmatchedRef), requested(unmatchedRef, 'unmatched_payment')]))).toEqual([]);

        const results = store.outbox.filter((m) => m.type === 'ConsensusResult').map((m) => m.payload as ConsensusResultV1);
        const observed = store.outbox.filter((m) => m.type === 'UnmatchedPaymentObserved').map((m) => m.payload as UnmatchedPaymentObservedV1);
        // The cases ran: a decided payment, and an unmatched payment recorded.
        expect(results.map((r) => r.outcome)).toEqual([answer.who === 'same' && answer.amountDelta === 0 ? 'SETTLED_CONSENSUS' : 'STATE_MISMATCH']);
        expect(observed.map((o) => o.observation)).toEqual(['recorded']);
        const ledgerEvents = [...results.map(ledgerEventFor), ...observed.flatMap((o) => unmatchedPaymentLedgerEvent(o) ?? [])];
        const places = { kafka: JSON.stringify(store.outbox.map((m) => m.payload)), ledger: JSON.stringify(ledgerEvents), logs: lines.join('') };
        expect(lines.length).toBeGreaterThan(0);
        for (const [place, text] of Object.entries(places)) {
          for (const pattern of [...plaintextOf(payer), ...plaintextOf(reported)]) {
            expect(pattern.test(text), `${place} holds ${pattern.source}`).toBe(false);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
