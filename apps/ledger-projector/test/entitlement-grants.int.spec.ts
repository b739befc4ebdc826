/**
 * Grants are ledger facts: a settlement appends the grant it causes to the stream of its user
 * and entitlement, in the same transaction, decided on that stream's history; the grant leaves
 * through the outbox keyed by user. Real PostgreSQL and schema registry, the projector's class.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entitlementStream,
  findEntitlements,
  LEDGER_MIGRATIONS,
  PostgresLedger,
  PostgresLedgerWriter,
  READ_MODEL_MIGRATIONS,
  verifyLedger,
} from '@settle/ledger';
import { AvroCodec, Outbox, topicNames, type ConsensusResultV1, type EntitlementGrantedV1 } from '@settle/messaging';
import { createLogger, createPool, migrateSchemas, type Pool } from '@settle/platform';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { ProjectionService } from '../src/projection.service.js';

let pool: Pool;
let drop: () => Promise<void>;
let outbox: Outbox;
const context = { topic: 't', partition: 0, offset: '0', key: null, timestamp: 0, headers: {} };

beforeAll(async () => {
  const database = await createTestDatabase('settle_grants');
  drop = database.drop;
  pool = createPool(database.url, 6);
  await migrateSchemas(pool, [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS]);
  const topics = topicNames(uniqueTopicPrefix('grants'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['SettlementRecorded', 'EntitlementGranted']);
  outbox = new Outbox('ledger', topics, codec);
});

afterAll(async () => {
  await pool?.end();
  await drop?.();
});

const projector = () =>
  new ProjectionService(new PostgresLedgerWriter(pool, new PostgresLedger(pool), outbox, { wake: () => undefined }), createLogger('grants', 'fatal'));

/** Projects one result (a batch of one), as the consumer loop hands it over. */
async function project(service: ProjectionService, payload: ConsensusResultV1): Promise<void> {
  await service.handle({ type: 'ConsensusResult', payload }, context);
}

/** A settling consensus result for a fresh reference. */
function settled(userId: string, decidedAt: string, accessPeriod: string | null = 'P1M', entitlement = 'pro'): ConsensusResultV1 {
  const reference = `ref_${randomUUID().slice(0, 8)}`;
  return {
    event_id: randomUUID(),
    occurred_at: Date.parse(decidedAt),
    correlation_id: `corr-${reference}`,
    causation_id: randomUUID(),
    reference,
    provider: 'paystack',
    trigger: 'webhook_received',
    verdict: 'cleared',
    provider_status: 'success',
    detail: null,
    outcome: 'SETTLED_CONSENSUS',
    ledger_event_type: 'TransactionSettled',
    ledger_expected_revision: 0,
    state_before: 'PENDING',
    state_after: 'SETTLED_CONSENSUS',
    entitlement_status: 'UNLOCKED',
    checks: [{ check: 'amount', passed: true, code: null, expected: '500000', observed: '500000' }],
    amount_minor: 500_000,
    currency: 'NGN',
    user_id: userId,
    entitlement,
    observed_amount_minor: 500_000,
    charged_amount_minor: null,
    observed_currency: 'NGN',
    provider_transaction_id: null,
    access_period: accessPeriod,
  };
}

async function stream(userId: string, entitlement = 'pro') {
  return new PostgresLedger(pool).readStream(entitlementStream(userId, entitlement));
}

async function published(userId: string): Promise<Array<{ key: string; payload: EntitlementGrantedV1 }>> {
  const { rows } = await pool.query<{ message_key: string; payload: EntitlementGrantedV1 }>(
    `SELECT message_key, payload FROM ledger.outbox WHERE event_type = 'EntitlementGranted' AND payload->>'user_id' = $1 ORDER BY id`,
    [userId],
  );
  return rows.map((r) => ({ key: r.message_key, payload: r.payload }));
}

describe('entitlement grants recorded with the settlement', () => {
  it('the first settlement starts the subscription, later ones renew it from the stored expiry', async () => {
    const user = `user-${randomUUID()}`;
    const service = projector();
    const payments = [settled(user, '2027-01-31T09:00:00.000Z'), settled(user, '2027-02-10T09:00:00.000Z'), settled(user, '2027-02-11T09:00:00.000Z', 'P1Y')];
    for (const p of payments) await project(service, p);

    const events = await stream(user);
    expect(events.map((e) => [e.type, e.revision, e.data.event, e.data.expires_at, e.data.reference])).toEqual([
      ['EntitlementGranted', 0, 'subscription_started', '2027-02-28T09:00:00.000Z', payments[0]!.reference],
      ['EntitlementGranted', 1, 'subscription_renewed', '2027-03-28T09:00:00.000Z', payments[1]!.reference],
      ['EntitlementGranted', 2, 'subscription_renewed', '2028-03-28T09:00:00.000Z', payments[2]!.reference],
    ]);
    expect(events[1]!.data).toMatchObject({
      previous_expires_at: '2027-02-28T09:00:00.000Z',
      starts_at: '2027-02-28T09:00:00.000Z',
      settled_at: '2027-02-10T09:00:00.000Z',
    });

    const out = await published(user);
    expect(out.map((m) => m.key)).toEqual([user, user, user]);
    expect(out.map((m) => m.payload.event_id)).toEqual(events.map((e) => e.eventId));
    expect(out[2]!.payload).toMatchObject({
      event: 'subscription_renewed',
      expires_at: '2028-03-28T09:00:00.000Z',
      ledger_stream: entitlementStream(user, 'pro'),
      ledger_revision: 2,
    });

    const [row] = await findEntitlements(pool, user);
    expect(row).toMatchObject({ entitlement: 'pro', grants: 3, lastEvent: 'subscription_renewed', expiresAt: new Date('2028-03-28T09:00:00.000Z') });
  });

  it('a renewal paid after the access lapsed starts from its settlement', async () => {
    const user = `user-${randomUUID()}`;
    const service = projector();
    await project(service, settled(user, '2027-01-01T00:00:00.000Z'));
    await project(service, settled(user, '2027-05-15T12:00:00.000Z'));
    expect((await stream(user)).map((e) => e.data.expires_at)).toEqual(['2027-02-01T00:00:00.000Z', '2027-06-15T12:00:00.000Z']);
  });

  it('a redelivered settlement grants nothing more, and the event id stays the same', async () => {
    const user = `user-${randomUUID()}`;
    const service = projector();
    const payment = settled(user, '2027-03-01T00:00:00.000Z');
    await project(service, payment);
    await project(service, payment);
    await project(projector(), payment);
    const events = await stream(user);
    expect(events).toHaveLength(1);
    expect((await published(user)).map((m) => m.payload.event_id)).toEqual([events[0]!.eventId]);
  });

  it('two settlements of one user projected at the same moment both grant, in one order, neither lost', async () => {
    const user = `user-${randomUUID()}`;
    const payments = [settled(user, '2027-04-01T00:00:00.000Z'), settled(user, '2027-04-01T00:00:01.000Z')];
    // The entitlement stream is locked before its history is read: the second waits, then sees the first.
    await Promise.all(payments.map((p) => project(projector(), p)));
    const events = await stream(user);
    expect(events.map((e) => e.data.event)).toEqual(['subscription_started', 'subscription_renewed']);
    expect(new Set(events.map((e) => e.data.reference))).toEqual(new Set(payments.map((p) => p.reference)));
    // Whichever went first, the second extends the first's expiry by one month.
    expect(Date.parse(String(events[1]!.data.expires_at))).toBeGreaterThan(Date.parse(String(events[0]!.data.expires_at)));
    expect(await published(user)).toHaveLength(2);
  });

  it('a batch projects in one transaction: grants of one stream in order, a redelivered copy once, a wrong revision dead-lettered alone', async () => {
    const user = `user-${randomUUID()}`;
    const first = settled(user, '2027-03-01T00:00:00.000Z');
    const second = settled(user, '2027-03-02T00:00:00.000Z');
    const stale = { ...settled(user, '2027-03-03T00:00:00.000Z'), ledger_expected_revision: 5 };
    const other = settled(`user-${randomUUID()}`, '2027-03-01T00:00:00.000Z');
    const batch = [first, first, stale, second, other].map((payload, i) => ({
      event: { type: 'ConsensusResult' as const, payload },
      context: { ...context, offset: String(i) },
    }));
    const failed = await projector().handleBatch(batch);
    expect(failed.map((f) => [f.index, (f.error as { code?: string }).code])).toEqual([[2, 'LEDGER.WRONG_EXPECTED_REVISION']]);
    const events = await stream(user);
    expect(events.map((e) => [e.data.reference, e.data.event])).toEqual([
      [first.reference, 'subscription_started'],
      [second.reference, 'subscription_renewed'],
    ]);
    expect(String(events[1]!.data.expires_at)).toBe('2027-05-01T00:00:00.000Z');
    const { rows } = await pool.query<{ reference: string; n: number }>(
      `SELECT data->>'reference' AS reference, count(*)::int AS n FROM ledger.events
        WHERE event_type = 'TransactionSettled' AND data->>'reference' = ANY($1) GROUP BY 1 ORDER BY 1`,
      [[first, second, stale, other].map((p) => p.reference)],
    );
    expect(rows).toEqual([first, second, other].map((p) => ({ reference: p.reference, n: 1 })).sort((a, b) => a.reference.localeCompare(b.reference)));
    expect(await published(user)).toHaveLength(2);
    // Handled again (the batch redelivered after a crash before the offsets were committed): nothing new.
    const again = await projector().handleBatch(batch);
    expect(again.map((f) => f.index)).toEqual([2]);
    expect(await stream(user)).toHaveLength(2);
    expect((await verifyLedger(new PostgresLedger(pool))).broken).toBeNull();
  });

  it('each entitlement of a user has its own stream', async () => {
    const user = `user-${randomUUID()}`;
    const service = projector();
    await project(service, settled(user, '2027-01-01T00:00:00.000Z', 'P1M', 'pro'));
    await project(service, settled(user, '2027-01-01T00:00:00.000Z', 'P1Y', 'storage:100GB'));
    expect((await findEntitlements(pool, user)).map((r) => [r.entitlement, r.lastEvent, r.expiresAt.toISOString()])).toEqual([
      ['pro', 'subscription_started', '2027-02-01T00:00:00.000Z'],
      ['storage:100GB', 'subscription_started', '2028-01-01T00:00:00.000Z'],
    ]);
  });

  it('a settlement registered without an access period is recorded and grants nothing', async () => {
    const user = `user-${randomUUID()}`;
    await project(projector(), settled(user, '2027-01-01T00:00:00.000Z', null));
    expect(await stream(user)).toEqual([]);
    expect(await published(user)).toEqual([]);
  });

  it('a settlement whose access period breaks the rules is recorded and grants nothing, rather than being dead-lettered', async () => {
    const user = `user-${randomUUID()}`;
    const payment = settled(user, '2027-01-01T00:00:00.000Z', 'P0D');
    await project(projector(), payment);
    const { rows } = await pool.query(`SELECT event_type FROM ledger.events WHERE stream_id = $1`, [`transaction-${payment.reference}`]);
    expect(rows).toEqual([{ event_type: 'TransactionSettled' }]);
    expect(await stream(user)).toEqual([]);
  });

  it('both hash chains cover the entitlement streams', async () => {
    const result = await verifyLedger(new PostgresLedger(pool));
    expect(result.broken).toBeNull();
    const grants = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.events WHERE event_type = 'EntitlementGranted'`)).rows[0]!.n;
    expect(grants).toBeGreaterThanOrEqual(10);
  });
});
