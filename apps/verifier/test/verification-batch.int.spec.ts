/**
 * The verifier handles a Kafka batch in one transaction: one read of the inbox and the states,
 * provider calls of different references in parallel (one reference's messages in order), and
 * one commit of the inbox, the states and the outbox. Real PostgreSQL and schema registry, the
 * verifier's service over a scripted provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderName, ProviderVerdict } from '@settle/domain';
import { AvroCodec, Outbox, topicNames, type ConsensusResultV1 } from '@settle/messaging';
import { createLogger, createPool, migrateSchema, type Pool } from '@settle/platform';
import type { PaymentProvider, VerificationRequest } from '@settle/providers';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { VERIFIER_MIGRATIONS } from '../src/schema.js';
import { TransactionRepository } from '../src/transaction.repository.js';
import { PostgresVerificationStore } from '../src/verification-store.postgres.js';
import { VerificationService } from '../src/verification.service.js';
import { batchOf, fresh, registered, requested, webhook } from './messages.js';

let pool: Pool;
let drop: () => Promise<void>;
let outbox: Outbox;

beforeAll(async () => {
  const database = await createTestDatabase('settle_verifier');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchema(pool, VERIFIER_MIGRATIONS);
  const topics = topicNames(uniqueTopicPrefix('verifier'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['ConsensusResult']);
  outbox = new Outbox('verifier', topics, codec);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

/**
 * A Paystack stand-in answering each reference as scripted (cleared by default, after
 * `delayMs`), recording every call and how many were in flight at once, overall and per reference.
 */
class ScriptedProvider implements PaymentProvider {
  readonly name: ProviderName = 'paystack';
  readonly calls: string[] = [];
  maxInFlight = 0;
  maxInFlightPerReference = 0;
  private inFlight = 0;
  private readonly perReference = new Map<string, number>();
  constructor(readonly script: Map<string, { delayMs?: number; fail?: boolean; verdict?: ProviderVerdict }> = new Map()) {}

  async verify({ reference, expectation }: VerificationRequest): Promise<ProviderVerdict> {
    this.calls.push(reference);
    const mine = (this.perReference.get(reference) ?? 0) + 1;
    this.perReference.set(reference, mine);
    this.maxInFlightPerReference = Math.max(this.maxInFlightPerReference, mine);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      const step = this.script.get(reference) ?? {};
      await new Promise((resolve) => setTimeout(resolve, step.delayMs ?? 20));
      if (step.fail) throw new Error('the adapter broke its promise never to reject');
      return (
        step.verdict ?? {
          kind: 'cleared',
          observation: {
            reference,
            amountMinor: expectation!.amountMinor,
            currency: expectation!.currency,
            customer: { email: expectation!.customer.email },
            providerStatus: 'success',
          },
        }
      );
    } finally {
      this.inFlight--;
      this.perReference.set(reference, this.perReference.get(reference)! - 1);
    }
  }
}

const service = (provider: PaymentProvider) =>
  new VerificationService(
    new PostgresVerificationStore(pool, new TransactionRepository(pool), outbox),
    new Map([['paystack', provider]]),
    { wake: () => undefined },
    createLogger('verifier-test', 'fatal'),
    undefined,
    {
      keyConcurrency: 16,
    },
  );

async function results(references: readonly string[]): Promise<ConsensusResultV1[]> {
  const { rows } = await pool.query<{ payload: ConsensusResultV1 }>(
    `SELECT payload FROM verifier.outbox WHERE event_type = 'ConsensusResult' AND payload->>'reference' = ANY($1) ORDER BY id`,
    [references],
  );
  return rows.map((r) => r.payload);
}

async function states(references: readonly string[]): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ reference: string; status: string }>('SELECT reference, status FROM verifier.transactions WHERE reference = ANY($1)', [
    references,
  ]);
  return Object.fromEntries(rows.map((r) => [r.reference, r.status]));
}

describe('the verifier, one transaction per batch', () => {
  it('registers and verifies a whole batch: one result per reference, a redelivered copy handled once, a bad message dead-lettered alone', async () => {
    const [a, b, c] = fresh(3) as [string, string, string];
    const provider = new ScriptedProvider();
    const hookA = webhook(a);
    // An unknown trigger never reaches the verifier (the codec refuses it at decode time); a
    // malformed access period is a bad message that only the verifier can see.
    const malformed = registered(c);
    if (malformed.type === 'CheckoutRegistered') malformed.payload.access_period = 'one month';
    const batch = batchOf([registered(a), registered(b), hookA, webhook(b), hookA, malformed]);
    const failed = await service(provider).handleBatch(batch);
    expect(failed.map((f) => [f.index, (f.error as { code?: string }).code])).toEqual([[5, 'VERIFICATION.INVALID_ACCESS_PERIOD']]);
    expect(provider.calls.sort()).toEqual([a, b].sort());
    expect(await states([a, b])).toEqual({ [a]: 'SETTLED_CONSENSUS', [b]: 'SETTLED_CONSENSUS' });
    expect((await results([a, b])).map((r) => [r.reference, r.outcome]).sort()).toEqual(
      [
        [a, 'SETTLED_CONSENSUS'],
        [b, 'SETTLED_CONSENSUS'],
      ].sort(),
    );

    // The same batch again (the offsets were not committed before a crash): the inbox skips it all.
    const again = new ScriptedProvider();
    expect((await service(again).handleBatch(batch)).map((f) => f.index)).toEqual([5]);
    expect(again.calls).toEqual([]);
    expect(await results([a, b])).toHaveLength(2);
  });

  it('overlaps provider calls of different references, while one reference is verified in order and not again once settled', async () => {
    const references = fresh(6);
    const [slow, twice] = references as [string, string];
    const provider = new ScriptedProvider(new Map([[slow, { delayMs: 300 }]]));
    await service(provider).handleBatch(batchOf(references.map(registered)));
    const clearing: ProviderVerdict = { kind: 'clearing', providerStatus: 'ongoing' };
    provider.script.set(twice, { verdict: clearing, delayMs: 50 });
    const started = Date.now();
    expect(await service(provider).handleBatch(batchOf([...references.map(webhook), requested(twice, 'customer_returned')]))).toEqual([]);
    // Six references at 20-300 ms each: overlapped, the batch takes about the slowest call.
    expect(provider.maxInFlight).toBeGreaterThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(provider.maxInFlightPerReference).toBe(1);
    expect(provider.calls.filter((r) => r === twice)).toHaveLength(2);
    const mine = await results([twice]);
    expect(mine.map((r) => r.trigger)).toEqual(['webhook_received', 'customer_returned']);
    expect(await states(references)).toMatchObject({ [slow]: 'SETTLED_CONSENSUS', [twice]: 'RECOVERING' });
  });

  it('commits the finished references while a slow provider answer is still awaited', async () => {
    const references = fresh(4);
    const [slow, ...quick] = references as [string, ...string[]];
    const provider = new ScriptedProvider(new Map([[slow, { delayMs: 1_500 }]]));
    await service(provider).handleBatch(batchOf(references.map(registered)));
    const handling = service(provider).handleBatch(batchOf(references.map(webhook)));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await results(references)).map((r) => r.reference).sort()).toEqual([...quick].sort());
    expect(await handling).toEqual([]);
    expect((await results(references)).map((r) => r.reference).sort()).toEqual([...references].sort());
  });

  it('commits the references that succeeded when another fails transiently, and resumes only the failed one on retry', async () => {
    const [good, broken] = fresh(2) as [string, string];
    const provider = new ScriptedProvider(new Map([[broken, { fail: true }]]));
    const batch = batchOf([registered(good), registered(broken), webhook(good), webhook(broken)]);
    await expect(service(provider).handleBatch(batch)).rejects.toThrow(/never to reject/);
    expect(await states([good, broken])).toEqual({ [good]: 'SETTLED_CONSENSUS', [broken]: 'PENDING' });

    provider.script.delete(broken);
    provider.calls.length = 0;
    expect(await service(provider).handleBatch(batch)).toEqual([]);
    expect(provider.calls).toEqual([broken]);
    expect(await states([good, broken])).toEqual({ [good]: 'SETTLED_CONSENSUS', [broken]: 'SETTLED_CONSENSUS' });
    expect(await results([good, broken])).toHaveLength(2);
  });

  it('leaves a trigger for an unregistered reference to the sweeper, and verifies once the checkout is registered in the same batch', async () => {
    const [reference] = fresh(1) as [string];
    const provider = new ScriptedProvider();
    expect(await service(provider).handleBatch(batchOf([webhook(reference), registered(reference), webhook(reference)]))).toEqual([]);
    expect(provider.calls).toEqual([reference]);
    expect(await states([reference])).toEqual({ [reference]: 'SETTLED_CONSENSUS' });
  });
});

describe('when a payment settled, for duplicate charges (docs/reconciliation.md)', () => {
  it('records settled_at whether a checkout is registered and settled in one batch or settled later, and tells who asked which references settled', async () => {
    const [together, later, declined] = fresh(3) as [string, string, string];
    const settledSeen: string[] = [];
    const provider = new ScriptedProvider(new Map([[declined, { verdict: { kind: 'declined', providerStatus: 'failed', reason: 'Declined' } }]]));
    const verifier = new VerificationService(
      new PostgresVerificationStore(pool, new TransactionRepository(pool), outbox),
      new Map([['paystack', provider]]),
      { wake: () => undefined },
      createLogger('verifier-test', 'fatal'),
      undefined,
      { onSettled: async (references) => void settledSeen.push(...references) },
    );
    const before = Date.now();
    await verifier.handleBatch(batchOf([registered(together), webhook(together), registered(later), registered(declined), webhook(declined)]));
    await verifier.handleBatch(batchOf([webhook(later)]));
    const { rows } = await pool.query<{ reference: string; settled_at: number | null }>(
      'SELECT reference, settled_at FROM verifier.transactions WHERE reference = ANY($1)',
      [[together, later, declined]],
    );
    const at = Object.fromEntries(rows.map((r) => [r.reference, r.settled_at === null ? null : Number(r.settled_at)]));
    expect(at[together]).toBeGreaterThanOrEqual(before);
    expect(at[later]).toBeGreaterThanOrEqual(at[together]!);
    expect(at[declined]).toBeNull();
    expect(settledSeen.sort()).toEqual([together, later].sort());
  });
});
