/**
 * Unauthenticated amplification (docs/webhooks.md, "Spoofed webhooks and repeated
 * verifications"): spoofed webhooks, `/verify` and `/attempts` for one reference are coalesced
 * in PostgreSQL, across two ingestion instances sharing a database; honest triggers are never
 * held back. Runs the ingestion module in-process (two instances, Fastify injection) against a
 * real PostgreSQL and the real schema registry; the verifier's answers are written to the read
 * model as the ledger projector would. The outbox is not relayed, so its rows are what was
 * published.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIngestionConfig, Secret } from '@settle/config';
import { DEFAULT_COALESCING_POLICY } from '@settle/domain';
import { READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { AvroCodec, Outbox, topicNames } from '@settle/messaging';
import { createLogger, createPool, HealthProbes, migrateSchema, postgresProbe, type Pool } from '@settle/platform';
import { webhookAuthenticators } from '@settle/providers';
import { createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { IngestionModule } from '../src/ingestion.module.js';
import { INGESTION_MIGRATIONS } from '../src/persistence/schema.js';
import { METRICS, OUTBOX } from '../src/tokens.js';
import { VerificationRequests } from '../src/verification/verification-requests.js';
import { IngestionMetrics } from '../src/webhooks/webhook.metrics.js';

const WINDOW_MS = 5_000;
const hex = (n: number) => randomBytes(n).toString('hex');
const apiKey = `sk_settle_${hex(24)}`;
const adminKey = `sk_admin_${hex(24)}`;
const paystackSecret = `sk_test_${hex(20)}`;
const logger = createLogger('coalescing-test', 'fatal');

let pool: Pool;
let drop: () => Promise<void>;
/** Two ingestion instances on one database. */
let apps: NestFastifyApplication[] = [];

beforeAll(async () => {
  const database = await createTestDatabase('settle_coalesce');
  drop = database.drop;
  pool = createPool(database.url, 12);
  await migrateSchema(pool, INGESTION_MIGRATIONS);
  await migrateSchema(pool, READ_MODEL_MIGRATIONS);
  const topics = topicNames(uniqueTopicPrefix('coalesce'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  await codec.registerAll(['CheckoutRegistered', 'CheckoutCompleted', 'ProviderWebhookReceived', 'VerificationRequested']);
  const config = loadIngestionConfig({
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: infra.registryUrl,
    DATABASE_URL: database.url,
    SETTLE_API_KEY_SHA256: createHash('sha256').update(apiKey).digest('hex'),
    SETTLE_ADMIN_API_KEY_SHA256: createHash('sha256').update(adminKey).digest('hex'),
    SETTLE_VERIFY_COALESCE_MS: String(WINDOW_MS),
  });
  for (let i = 0; i < 2; i++) {
    const app = await NestFactory.create<NestFastifyApplication>(
      IngestionModule.forRoot({
        config,
        logger,
        pool,
        outbox: new Outbox('ingestion', topics, codec),
        relay: { wake: () => undefined },
        webhookSecrets: { candidates: (provider) => (provider === 'paystack' ? [new Secret(paystackSecret)] : []) },
        webhookAuthenticators: webhookAuthenticators({ MPESA_CALLBACK_ALLOWLIST: '', WEBHOOK_TOLERANCE_MS: '300000' }),
        health: new HealthProbes([postgresProbe(pool)]),
      }),
      new FastifyAdapter(),
      { rawBody: true, logger: false },
    );
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    apps.push(app);
  }
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  apps = [];
  await pool?.end();
  await drop?.();
});

/** The n-th instance, alternating, so a flood is spread over both. */
const instance = (n: number) => apps[n % apps.length]!;

async function register(): Promise<string> {
  const reference = `ref_flood_${hex(6)}`;
  const answer = await instance(0).inject({
    method: 'POST',
    url: '/v1/checkouts',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: {
      provider: 'paystack',
      reference,
      amount: 500_000,
      currency: 'NGN',
      user_id: `user-${reference}`,
      customer: { email: `payer.${reference}@example.com` },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
    },
  });
  expect(answer.statusCode).toBe(202);
  return reference;
}

/** A Paystack `charge.success` body naming the reference; distinct each call. */
const chargeBody = (reference: string) => JSON.stringify({ event: 'charge.success', data: { reference, amount: 500_000, nonce: hex(8) } });

function webhook(n: number, body: string, signature: string) {
  return instance(n).inject({
    method: 'POST',
    url: '/v1/webhooks/paystack',
    payload: body,
    headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
  });
}

/** `count` distinct spoofed bodies for the reference, all at once, over both instances; each must answer 401. */
async function spoofFlood(reference: string, count: number): Promise<void> {
  const answers = await Promise.all(Array.from({ length: count }, (_, n) => webhook(n, chargeBody(reference), hex(64))));
  expect(answers.map((a) => [a.statusCode, a.json<{ code: string }>().code])).toEqual(answers.map(() => [401, 'WEBHOOK.SIGNATURE_INVALID']));
}

function verify(n: number, reference: string, path: 'verify' | 'attempts', waitMs = 0) {
  return instance(n).inject({ method: 'POST', url: `/v1/checkouts/${reference}/${path}?wait_ms=${waitMs}`, headers: { authorization: `Bearer ${apiKey}` } });
}

/** What ingestion published for the reference (its outbox, never relayed here). */
async function published(reference: string): Promise<Array<{ type: string; trigger: string | null; eventId: string }>> {
  const { rows } = await pool.query<{ event_type: string; trigger: string | null; event_id: string }>(
    `SELECT event_type, payload ->> 'trigger' AS trigger, payload ->> 'event_id' AS event_id
       FROM ingestion.outbox WHERE message_key = $1 AND event_type <> 'CheckoutRegistered' ORDER BY id`,
    [reference],
  );
  return rows.map((r) => ({ type: r.event_type, trigger: r.trigger, eventId: r.event_id }));
}

const requests = async (reference: string, trigger: string) =>
  (await published(reference)).filter((m) => m.type === 'VerificationRequested' && m.trigger === trigger);

/** The verifier answered a request: what the ledger projector writes to the read model. */
async function answered(reference: string, causationId: string, decidedAt: Date, verdict = 'clearing'): Promise<void> {
  await pool.query(
    `INSERT INTO read_model.latest_verification (reference, verdict, trigger, causation_id, state, entitlement_status, decided_at)
     VALUES ($1, $2, 'webhook_signature_rejected', $3, 'RECOVERING', 'LOCKED', $4)
     ON CONFLICT (reference) DO UPDATE SET verdict = EXCLUDED.verdict, causation_id = EXCLUDED.causation_id, decided_at = EXCLUDED.decided_at`,
    [reference, verdict, causationId, decidedAt],
  );
}

async function coalescedCount(trigger: string, reason: string): Promise<number> {
  const metrics = instance(0).get<IngestionMetrics>(METRICS);
  const other = instance(1).get<IngestionMetrics>(METRICS);
  let total = 0;
  for (const m of [metrics, other]) {
    const values = (await m.verificationRequests.get()).values;
    total += values
      .filter((v) => v.labels.trigger === trigger && v.labels.outcome === 'coalesced' && v.labels.reason === reason)
      .reduce((s, v) => s + v.value, 0);
  }
  return total;
}

describe('spoofed webhooks for one reference', () => {
  it('30 distinct spoofed bodies over two instances publish one verification request; the other 29 are counted as coalesced', async () => {
    const reference = await register();
    const before = await coalescedCount('webhook_signature_rejected', 'pending');
    await spoofFlood(reference, 30);
    expect(await requests(reference, 'webhook_signature_rejected')).toHaveLength(1);
    expect((await coalescedCount('webhook_signature_rejected', 'pending')) - before).toBe(29);
    // Only the body that asked is recorded: a flood does not fill the inbox.
    const { rows } = await pool.query('SELECT 1 FROM ingestion.webhook_inbox WHERE reference = $1', [reference]);
    expect(rows).toHaveLength(1);
  });

  it('never holds back a correctly signed webhook that arrives right after a spoof flood', async () => {
    const reference = await register();
    await spoofFlood(reference, 30);
    const body = chargeBody(reference);
    const honest = await webhook(1, body, createHmac('sha512', paystackSecret).update(body).digest('hex'));
    expect([honest.statusCode, honest.json()]).toEqual([200, { received: true }]);
    expect((await published(reference)).map((m) => [m.type, m.trigger])).toEqual([
      ['VerificationRequested', 'webhook_signature_rejected'],
      ['ProviderWebhookReceived', null],
    ]);
  });

  it('never holds back /verify, /attempts or a manual reconciliation', async () => {
    const reference = await register();
    await spoofFlood(reference, 30);
    expect((await verify(0, reference, 'verify')).json()).toMatchObject({ coalesced: false });
    expect((await verify(1, reference, 'attempts')).json()).toMatchObject({ coalesced: false });
    for (let n = 0; n < 3; n++) {
      const reconciled = await instance(n).inject({
        method: 'POST',
        url: `/v1/admin/checkouts/${reference}/reconcile?wait_ms=0`,
        headers: { authorization: `Bearer ${adminKey}` },
      });
      expect(reconciled.json()).toMatchObject({ verification: 'pending', coalesced: false });
    }
    expect((await published(reference)).map((m) => m.trigger)).toEqual([
      'webhook_signature_rejected',
      'customer_returned',
      'attempt_check',
      'admin_reconciliation',
      'admin_reconciliation',
      'admin_reconciliation',
    ]);
  });
});

describe.each(['verify', 'attempts'] as const)('POST /v1/checkouts/{reference}/%s repeated for one reference', (path) => {
  const trigger = path === 'verify' ? 'customer_returned' : 'attempt_check';

  it('30 calls at once over two instances publish one request; every call answers 200 with the current state', async () => {
    const reference = await register();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => verify(n, reference, path)));
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    const bodies = answers.map((a) => a.json<{ state: string; verification: string; coalesced: boolean }>());
    expect(bodies.filter((b) => !b.coalesced)).toHaveLength(1);
    expect(bodies.every((b) => b.state === 'PENDING' && b.verification === 'pending')).toBe(true);
    expect(await requests(reference, trigger)).toHaveLength(1);
  });

  it('a coalesced call waits for the result of the pending request it shares', async () => {
    const reference = await register();
    expect((await verify(0, reference, path)).json()).toMatchObject({ coalesced: false });
    const [pending] = await requests(reference, trigger);
    const waiting = verify(1, reference, path, 5_000);
    await answered(reference, pending!.eventId, new Date(), 'not_found');
    expect((await waiting).json()).toMatchObject({ verification: 'completed', verdict: 'not_found', coalesced: true });
    expect(await requests(reference, trigger)).toHaveLength(1);
  });

  it('answers from a provider answer younger than the window without a new request', async () => {
    const reference = await register();
    await answered(reference, randomUUID(), new Date(), 'not_found');
    const answers = await Promise.all([verify(0, reference, path), verify(1, reference, path)]);
    expect(answers.map((a) => a.json())).toEqual(
      answers.map(() => expect.objectContaining({ verification: 'completed', verdict: 'not_found', coalesced: true })),
    );
    expect(await requests(reference, trigger)).toHaveLength(0);
  });

  it('answers 404 CHECKOUT.NOT_FOUND for an unknown reference, publishing nothing', async () => {
    const answer = await verify(0, 'ref_nobody_registered', path);
    expect([answer.statusCode, answer.json<{ code: string }>().code]).toEqual([404, 'CHECKOUT.NOT_FOUND']);
    expect(await published('ref_nobody_registered')).toEqual([]);
  });
});

describe("the rule over time, in PostgreSQL and in each instance's memory (explicit clock)", () => {
  let outbox: Outbox;
  /** An ingestion instance's request path with a fresh memory, counting its transactions. */
  function instanceWithClock(): { requests: VerificationRequests; transactions: () => number } {
    let connects = 0;
    const counting = new Proxy(pool, {
      get(target, property) {
        if (property === 'connect') connects += 1;
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const requests = new VerificationRequests(counting, outbox, { wake: () => undefined }, new IngestionMetrics(), {
      verification: { coalesceWindowMs: WINDOW_MS },
    });
    return { requests, transactions: () => connects };
  }
  const spoofAt = (requests: VerificationRequests, reference: string, at: number) =>
    requests.request({
      reference,
      trigger: 'webhook_signature_rejected',
      requestedBy: 'ingestion',
      requestId: randomUUID(),
      now: new Date(at),
      rejectedBody: { provider: 'paystack', dedupeKey: `rejected:${randomUUID()}` },
    });

  beforeAll(() => {
    outbox = instance(0).get<Outbox>(OUTBOX);
  });

  it('adds nothing within the window after the answer, and asks once more after it', async () => {
    const reference = await register();
    const { requests: ingestion } = instanceWithClock();
    const t = Date.now();
    const first = await spoofAt(ingestion, reference, t);
    expect(first).toMatchObject({ kind: 'requested' });
    await answered(reference, first!.kind === 'requested' ? first!.requestId : '', new Date(t + 800));
    expect(await spoofAt(ingestion, reference, t + 800 + WINDOW_MS - 1)).toEqual({ kind: 'coalesced', reason: 'recent', answeredAt: t + 800 });
    // Another instance, which remembers nothing, decides the same from PostgreSQL.
    expect(await spoofAt(instanceWithClock().requests, reference, t + 800 + WINDOW_MS - 1)).toMatchObject({ kind: 'coalesced', reason: 'recent' });
    expect(await spoofAt(ingestion, reference, t + 800 + WINDOW_MS)).toMatchObject({ kind: 'requested' });
    expect(await requests(reference, 'webhook_signature_rejected')).toHaveLength(2);
  });

  it('asks again when a request stayed unanswered past the pending limit (the verifier skipped it)', async () => {
    const reference = await register();
    const { requests: ingestion } = instanceWithClock();
    const t = Date.now();
    const first = await spoofAt(ingestion, reference, t);
    const pending = { kind: 'coalesced', reason: 'pending', requestId: first!.kind === 'requested' ? first!.requestId : '', requestedAt: t };
    expect(await spoofAt(ingestion, reference, t + DEFAULT_COALESCING_POLICY.pendingLimitMs - 1)).toEqual(pending);
    expect(await spoofAt(instanceWithClock().requests, reference, t + DEFAULT_COALESCING_POLICY.pendingLimitMs - 1)).toEqual(pending);
    expect(await spoofAt(ingestion, reference, t + DEFAULT_COALESCING_POLICY.pendingLimitMs)).toMatchObject({ kind: 'requested' });
    expect(await requests(reference, 'webhook_signature_rejected')).toHaveLength(2);
  });

  it('costs one transaction per instance and window: the rest of a flood is answered from memory', async () => {
    const reference = await register();
    const { requests: ingestion, transactions } = instanceWithClock();
    const t = Date.now();
    for (let i = 0; i < 30; i++) await spoofAt(ingestion, reference, t + i * 100);
    expect(transactions()).toBe(1);
    expect(await requests(reference, 'webhook_signature_rejected')).toHaveLength(1);
    // Once the window has passed, PostgreSQL decides again (still pending: unanswered).
    expect(await spoofAt(ingestion, reference, t + WINDOW_MS)).toMatchObject({ kind: 'coalesced', reason: 'pending' });
    expect(transactions()).toBe(2);
  });
});

describe('before the ledger projector first created read_model', () => {
  it('still requests, and still coalesces while the request is pending', async () => {
    const database = await createTestDatabase('settle_coalesce_bare');
    const bare = createPool(database.url, 2);
    try {
      await migrateSchema(bare, INGESTION_MIGRATIONS);
      await bare.query(
        `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, entitlement, request_sha256, correlation_id, registered_at)
         VALUES ('ref_bare', 'paystack', 100, 'NGN', 'u', 'pro', 'x', 'corr-bare', now())`,
      );
      const outbox = instance(0).get<Outbox>(OUTBOX);
      const config = { verification: { coalesceWindowMs: WINDOW_MS } };
      const ask = (requests: VerificationRequests) =>
        requests.request({ reference: 'ref_bare', trigger: 'customer_returned', requestedBy: 'ingestion', requestId: randomUUID(), now: new Date() });
      expect(await ask(new VerificationRequests(bare, outbox, { wake: () => undefined }, new IngestionMetrics(), config))).toMatchObject({ kind: 'requested' });
      expect(await ask(new VerificationRequests(bare, outbox, { wake: () => undefined }, new IngestionMetrics(), config))).toMatchObject({
        kind: 'coalesced',
        reason: 'pending',
      });
      const { rows } = await bare.query(`SELECT 1 FROM ingestion.outbox WHERE event_type = 'VerificationRequested'`);
      expect(rows).toHaveLength(1);
    } finally {
      await bare.end();
      await database.drop();
    }
  });
});
