/**
 * The review queues and a transaction's recovery and deliveries against a real PostgreSQL, the
 * Nest app built in-process (`inject`): rows of the projector's, ingestion's, the sweeper's and
 * the dispatcher's tables seeded directly (each schema made by its own migrations), then the
 * answers of `GET /api/v1/queues/*` (keyset pages, oldest first, empty) and the `watch` and
 * `entitlementEvents` of `GET /api/v1/transactions/:reference`. The unmatched payments are
 * written by the read model's own writer (`upsertUnmatchedPayments`), as the projector does.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { MoneyMovementEvent } from '@settle/domain';
import {
  LEDGER_MIGRATIONS,
  moneyMovementLedgerEvent,
  PostgresLedger,
  READ_MODEL_MIGRATIONS,
  transactionStream,
  upsertUnmatchedPayments,
  type UnmatchedPaymentRecordedData,
  type UnmatchedPaymentRow,
} from '@settle/ledger';
import { createMetricsRegistry, createPool, migrateSchema, type Pool } from '@settle/platform';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_REGISTRY } from '@settle/providers';
import { type AnswerConformance } from './answer-conformance.js';
import { createTestDatabase, recordedUnmatchedPayment } from '@settle/testing';
import { AuthService } from '../src/auth/auth.service.js';
import { startConsoleTestApp } from './console-test-app.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { ConsoleMetrics } from '../src/metrics/console.metrics.js';
import { CONSOLE_MIGRATIONS } from '../src/schema.js';
import { ReviewQueues } from '../src/queues/review-queues.js';
import { TransactionRepository } from '../src/transactions/transaction.repository.js';

const dir = (app: string) => fileURLToPath(new URL(`../../${app}/migrations/${app}`, import.meta.url));
const PASSWORD = 'correct horse battery staple';
const DUE_AT = Date.parse('2026-11-25T09:12:00.000Z');

let answers: AnswerConformance;
let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let cookie: string;
const registry = createMetricsRegistry();
let transactions: TransactionRepository;

async function seedTransaction(reference: string, state: string, entitlement: string, updatedAt: string): Promise<void> {
  await pool.query(
    `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, customer_email, customer_phone, entitlement,
                                      request_sha256, correlation_id, registered_at, access_period)
     VALUES ($1, 'paystack', 5000, 'NGN', $2, NULL, NULL, 'pro', 'x', 'c', $3, 'P1M')`,
    [reference, `user-${reference}`, updatedAt],
  );
  await pool.query(
    `INSERT INTO read_model.transaction_status (reference, provider, state, entitlement_status, amount_minor, currency, checks, last_verdict, last_trigger, ledger_revision, updated_at)
     VALUES ($1, 'paystack', $2, $3, 5000, 'NGN', NULL, 'pending', 'sweeper_review_recheck', 0, $4)`,
    [reference, state, entitlement, updatedAt],
  );
}

async function seedWatch(reference: string, checks: number, dueAt: number | null): Promise<void> {
  await pool.query(
    `INSERT INTO sweeper.watch_state (reference, partition, correlation_id, status, registered, completed, webhook_seen, last_activity_at, progress_at, checks, last_check_at, due_at)
     VALUES ($1, 0, 'c', 'RECOVERING', true, true, false, $2, NULL, $3, $2, $4)`,
    [reference, DUE_AT - 60_000, checks, dueAt],
  );
}

async function get(url: string): Promise<{ status: number; body: any }> {
  const res = await app.inject({ method: 'GET', url, headers: { cookie } });
  return { status: res.statusCode, body: res.json() };
}

/** Every reference of a queue, following its cursors `limit` rows at a time; and the number of pages. */
async function drain(queue: string, limit: number): Promise<{ refs: string[]; pages: number }> {
  const refs: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const { status, body }: { status: number; body: any } = await get(`/api/v1/queues/${queue}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(status).toBe(200);
    refs.push(...body.items.map((i: { reference: string }) => i.reference));
    cursor = body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  return { refs, pages };
}

beforeAll(async () => {
  const database = await createTestDatabase('settle_console_queues');
  drop = database.drop;
  pool = createPool(database.url, 4);
  for (const migrations of [
    CONSOLE_MIGRATIONS,
    LEDGER_MIGRATIONS,
    READ_MODEL_MIGRATIONS,
    { schema: 'ingestion', dir: dir('ingestion') },
    { schema: 'sweeper', dir: dir('sweeper') },
    { schema: 'dispatcher', dir: dir('dispatcher') },
  ]) {
    await migrateSchema(pool, migrations);
  }
  const auth = new AuthService(new PostgresAuthStore(pool), { sessionTtlMs: 3_600_000 });
  await auth.createUser('viewer@example.com', PASSWORD, 'viewer');
  transactions = new TransactionRepository(pool, new PostgresLedger(pool));
  ({ app, answers } = await startConsoleTestApp(pool, { auth, transactions, metrics: registry }));
  const res = await app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: 'viewer@example.com', password: PASSWORD } });
  cookie = String(res.headers['set-cookie']).split(';')[0]!;
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await drop?.();
});

describe('empty', () => {
  it('answers empty queues, and a transaction without a watch or entitlement events', async () => {
    expect(await get('/api/v1/queues/held-in-review')).toEqual({ status: 200, body: { items: [], nextCursor: null } });
    expect(await get('/api/v1/queues/manual-review')).toEqual({ status: 200, body: { items: [], nextCursor: null } });
    await seedTransaction('LONE', 'PENDING', 'LOCKED', '2026-11-20T10:00:00Z');
    const { status, body } = await get('/api/v1/transactions/LONE');
    expect(status).toBe(200);
    expect(body.watch).toBeNull();
    expect(body.entitlementEvents).toEqual([]);
  });

  it('needs a session and refuses a bad limit or cursor with 400 problem details', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/api/v1/queues/held-in-review' });
    expect(anonymous.statusCode).toBe(401);
    for (const query of ['limit=0', 'limit=101', 'cursor=bm90LWEtY3Vyc29y']) {
      for (const queue of ['held-in-review', 'manual-review']) {
        const { status, body } = await get(`/api/v1/queues/${queue}?${query}`);
        expect(status).toBe(400);
        expect(body).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
      }
    }
  });
});

describe('queues', () => {
  beforeAll(async () => {
    // Held in review: H-2 and H-3 share updated_at to the microsecond (ties broken by reference).
    await seedTransaction('H-1', 'RECOVERING', 'HELD_IN_REVIEW', '2026-11-25T08:00:00.000001Z');
    await seedTransaction('H-3', 'RECOVERING', 'HELD_IN_REVIEW', '2026-11-25T08:00:00.000002Z');
    await seedTransaction('H-2', 'RECOVERING', 'HELD_IN_REVIEW', '2026-11-25T08:00:00.000002Z');
    await seedTransaction('H-4', 'RECOVERING', 'HELD_IN_REVIEW', '2026-11-25T08:30:00Z');
    await seedWatch('H-1', 3, DUE_AT);
    await seedWatch('H-2', 0, null);
    // Manual review: M-1 with a ledger stream and a spent watch, M-2 with neither. Not queued: settled, and manual review is not held.
    await seedTransaction('M-2', 'MANUAL_REVIEW', 'HELD_IN_REVIEW', '2026-11-24T12:00:00Z');
    await seedTransaction('M-1', 'MANUAL_REVIEW', 'HELD_IN_REVIEW', '2026-11-24T11:00:00Z');
    await seedTransaction('S-1', 'SETTLED_CONSENSUS', 'UNLOCKED', '2026-11-24T10:00:00Z');
    await seedWatch('M-1', 30, null);
    // The verifier's latest answer wins over the last decision's (`pending` for every seeded row).
    await pool.query(
      `INSERT INTO read_model.latest_verification (reference, verdict, trigger, causation_id, state, entitlement_status, decided_at)
       VALUES ('M-1', 'clearing', 'sweeper_review_limit', 'k-3', 'MANUAL_REVIEW', 'HELD_IN_REVIEW', now())`,
    );
    await new PostgresLedger(pool).append(
      transactionStream('M-1'),
      [
        { eventId: randomUUID(), type: 'PaymentHeldInReview', data: { detail: 'still clearing' }, metadata: { correlationId: 'c', causationId: 'k-1' } },
        {
          eventId: randomUUID(),
          type: 'ManualReviewRequested',
          data: { detail: 'still clearing after 30 re-checks' },
          metadata: { correlationId: 'c', causationId: 'k-2' },
        },
      ],
      'no_stream',
    );
  });

  it('lists held-in-review transactions oldest first with the next check and the checks so far', async () => {
    const { status, body } = await get('/api/v1/queues/held-in-review');
    expect(status).toBe(200);
    expect(body.nextCursor).toBeNull();
    expect(body.items).toEqual([
      expect.objectContaining({
        reference: 'H-1',
        state: 'RECOVERING',
        entitlementStatus: 'HELD_IN_REVIEW',
        amountMinor: 5000,
        userId: 'user-H-1',
        nextCheckAt: '2026-11-25T09:12:00.000Z',
        checksSoFar: 3,
      }),
      expect.objectContaining({ reference: 'H-2', nextCheckAt: null, checksSoFar: 0 }),
      expect.objectContaining({ reference: 'H-3', nextCheckAt: null, checksSoFar: 0 }),
      expect.objectContaining({ reference: 'H-4', updatedAt: '2026-11-25T08:30:00.000Z' }),
    ]);
  });

  it('pages the held-in-review queue by cursor, every row once, ties broken by reference', async () => {
    expect(await drain('held-in-review', 1)).toEqual({ refs: ['H-1', 'H-2', 'H-3', 'H-4'], pages: 4 });
    expect(await drain('held-in-review', 3)).toEqual({ refs: ['H-1', 'H-2', 'H-3', 'H-4'], pages: 2 });
    expect(await drain('held-in-review', 4)).toEqual({ refs: ['H-1', 'H-2', 'H-3', 'H-4'], pages: 1 });
  });

  it('lists manual-review transactions oldest first with why: verdict, trigger, checks, the last ledger event', async () => {
    const { status, body } = await get('/api/v1/queues/manual-review');
    expect(status).toBe(200);
    expect(body.items).toEqual([
      expect.objectContaining({
        reference: 'M-1',
        state: 'MANUAL_REVIEW',
        lastVerdict: 'clearing',
        lastTrigger: 'sweeper_review_limit',
        checksSoFar: 30,
        lastEvent: { type: 'ManualReviewRequested', recordedAt: expect.any(String), detail: 'still clearing after 30 re-checks' },
      }),
      expect.objectContaining({ reference: 'M-2', lastVerdict: 'pending', lastTrigger: 'sweeper_review_recheck', checksSoFar: 0, lastEvent: null }),
    ]);
    expect(body.nextCursor).toBeNull();
    expect(await drain('manual-review', 1)).toEqual({ refs: ['M-1', 'M-2'], pages: 2 });
  });

  it("answers a transaction's watch: next check, checks so far, active only while a check is due", async () => {
    expect((await get('/api/v1/transactions/H-1')).body.watch).toEqual({ nextCheckAt: '2026-11-25T09:12:00.000Z', checksSoFar: 3, active: true });
    expect((await get('/api/v1/transactions/M-1')).body.watch).toEqual({ nextCheckAt: null, checksSoFar: 30, active: false });
    expect((await get('/api/v1/transactions/H-4')).body.watch).toBeNull();
  });
});

describe('the review queues as metrics', () => {
  it('counts both queues into their gauges, served at GET /metrics with the default process metrics and the HTTP latency', async () => {
    const metrics = new ConsoleMetrics(registry);
    const counting = metrics.reviewCounting(new ReviewQueues(pool, transactions), pino({ level: 'silent' }));
    await counting.runOnce();
    // The queues' seeds above: H-1 to H-4 held in review, M-1 and M-2 in manual review (held too, counted once).
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^settle_transactions_held_in_review 4$/m);
    expect(res.body).toMatch(/^settle_transactions_in_manual_review 2$/m);
    expect(res.body).toMatch(/^process_cpu_seconds_total \d/m);
    expect(res.body).toMatch(/^settle_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/session",status_code="200"\} 1$/m);

    await seedTransaction('M-3', 'MANUAL_REVIEW', 'LOCKED', '2026-11-24T13:00:00Z');
    await counting.runOnce();
    expect(await metrics.manualReview.get()).toMatchObject({ values: [{ value: 3 }] });
    expect(await metrics.heldInReview.get()).toMatchObject({ values: [{ value: 4 }] });
  });
});

describe('the State Mismatch queue', () => {
  const checks = (failing: Record<string, { expected: string; observed: string }>) =>
    ['transaction_identity', 'currency', 'amount', 'customer'].map((check) => ({
      check,
      passed: !(check in failing),
      code: check in failing ? `CONSENSUS.${check.toUpperCase()}_MISMATCH` : null,
      expected: failing[check]?.expected ?? 'same',
      observed: failing[check]?.observed ?? 'same',
    }));

  beforeAll(async () => {
    await seedTransaction('X-1', 'STATE_MISMATCH', 'LOCKED', '2026-11-20T10:00:00Z');
    await seedTransaction('X-2', 'STATE_MISMATCH', 'LOCKED', '2026-11-21T10:00:00Z');
    await pool.query(`UPDATE read_model.transaction_status SET checks = $2::jsonb WHERE reference = $1`, [
      'X-1',
      JSON.stringify(checks({ amount: { expected: '5000 NGN', observed: '4000 NGN' } })),
    ]);
    await pool.query(`UPDATE read_model.transaction_status SET provider = 'stripe', checks = $2::jsonb WHERE reference = $1`, [
      'X-2',
      JSON.stringify(checks({ currency: { expected: 'NGN', observed: 'USD' }, customer: { expected: 'ada@example.com', observed: 'bob@example.com' } })),
    ]);
  });

  it('lists State Mismatch newest first with each failed check, expected against observed, and the provider field it came from', async () => {
    const { status, body } = await get('/api/v1/queues/state-mismatch');
    expect(status).toBe(200);
    expect(body.items.map((i: { reference: string }) => i.reference)).toEqual(['X-2', 'X-1']);
    expect(body.items[0].failedChecks).toEqual([
      {
        check: 'currency',
        code: 'CONSENSUS.CURRENCY_MISMATCH',
        expected: 'NGN',
        observed: 'USD',
        providerField: PROVIDER_REGISTRY.stripe.observedFields.currency,
      },
      {
        check: 'customer',
        code: 'CONSENSUS.CUSTOMER_MISMATCH',
        expected: 'ada@example.com',
        observed: 'bob@example.com',
        providerField: PROVIDER_REGISTRY.stripe.observedFields.customer,
      },
    ]);
    expect(body.items[1].failedChecks).toEqual([
      {
        check: 'amount',
        code: 'CONSENSUS.AMOUNT_MISMATCH',
        expected: '5000 NGN',
        observed: '4000 NGN',
        providerField: PROVIDER_REGISTRY.paystack.observedFields.amount,
      },
    ]);
    expect(PROVIDER_REGISTRY.paystack.observedFields.amount).toContain('data.amount');
    expect((await drain('state-mismatch', 1)).refs).toEqual(['X-2', 'X-1']);
  });
});

describe('entitlement events', () => {
  const EVENT_1 = '00000000-0000-4000-8000-000000000001';
  const EVENT_2 = '00000000-0000-4000-8000-000000000002';
  const EP_A = '00000000-0000-4000-8000-00000000000a';
  const EP_B = '00000000-0000-4000-8000-00000000000b';

  beforeAll(async () => {
    await seedTransaction('S-2', 'SETTLED_CONSENSUS', 'UNLOCKED', '2026-11-24T10:00:00Z');
    for (const [id, url] of [
      [EP_A, 'https://a.example.com/hooks'],
      [EP_B, 'https://b.example.com/hooks'],
    ] as const) {
      await pool.query(`INSERT INTO dispatcher.endpoints (id, url, event_kinds, secret_version) VALUES ($1, $2, ARRAY['entitlement.granted'], 1)`, [id, url]);
    }
    const body = (eventId: string, expiresAt: string) =>
      JSON.stringify({ event_id: eventId, event: 'entitlement.granted', entitlement: 'pro', user_id: 'u', expires_at: expiresAt, reference: 'S-2' });
    await pool.query(
      `INSERT INTO dispatcher.events (event_id, event, user_id, entitlement, reference, correlation_id, body, published_at)
       VALUES ($1, 'entitlement.granted', 'u', 'pro', 'S-2', 'c', $2, '2026-11-24T10:00:01Z'),
              ($3, 'entitlement.granted', 'u', 'pro', 'S-2', 'c', $4, '2026-11-24T10:00:02Z')`,
      [EVENT_2, body(EVENT_2, '2026-12-24T10:00:00.000Z'), EVENT_1, body(EVENT_1, '2027-01-24T10:00:00.000Z')],
    );
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state, attempts) VALUES ($1, $2, 'delivered', 2), ($1, $3, 'pending', 0) RETURNING id`,
      [EVENT_2, EP_B, EP_A],
    );
    await pool.query(
      `INSERT INTO dispatcher.attempts (delivery_id, attempt, started_at, latency_ms, status, outcome, error)
       VALUES ($1, 2, '2026-11-24T10:01:00Z', 85, 200, 'delivered', NULL), ($1, 1, '2026-11-24T10:00:01.5Z', 10000, NULL, 'failed', 'timeout')`,
      [rows[0]!.id],
    );
  });

  it("answers the reference's entitlement events, oldest first, with deliveries by endpoint URL and attempts oldest first", async () => {
    const { status, body } = await get('/api/v1/transactions/S-2');
    expect(status).toBe(200);
    expect(body.entitlementEvents).toEqual([
      {
        eventId: EVENT_2,
        event: 'entitlement.granted',
        expiresAt: '2026-12-24T10:00:00.000Z',
        deliveries: [
          { endpointId: EP_A, endpointUrl: 'https://a.example.com/hooks', status: 'pending', attempts: [] },
          {
            endpointId: EP_B,
            endpointUrl: 'https://b.example.com/hooks',
            status: 'delivered',
            attempts: [
              { at: '2026-11-24T10:00:01.500Z', outcome: 'failed', httpStatus: null, durationMs: 10000 },
              { at: '2026-11-24T10:01:00.000Z', outcome: 'delivered', httpStatus: 200, durationMs: 85 },
            ],
          },
        ],
      },
      { eventId: EVENT_1, event: 'entitlement.granted', expiresAt: '2027-01-24T10:00:00.000Z', deliveries: [] },
    ]);
    expect(body.watch).toBeNull();
  });
});

describe('the unmatched payments queue', () => {
  const recorded = (reference: string, verifiedAt: string, extra: Partial<UnmatchedPaymentRecordedData> = {}): UnmatchedPaymentRow =>
    recordedUnmatchedPayment(reference, { provider_transaction_id: `tx-${reference}`, verified_at: verifiedAt, ...extra });

  it('answers an empty queue before any payment is recorded', async () => {
    expect(await get('/api/v1/queues/unmatched-payments')).toEqual({ status: 200, body: { items: [], nextCursor: null } });
  });

  it('needs a session and refuses a bad limit or cursor with 400 problem details', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/v1/queues/unmatched-payments' })).statusCode).toBe(401);
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=bm90LWEtY3Vyc29y']) {
      const { status, body } = await get(`/api/v1/queues/unmatched-payments?${query}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
  });

  it('answers 503 READ_MODEL.NOT_READY while its view does not exist', async () => {
    await pool.query('ALTER VIEW read_model.console_unmatched_payments RENAME TO console_unmatched_payments_away');
    try {
      const { status, body } = await get('/api/v1/queues/unmatched-payments');
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'READ_MODEL.NOT_READY' });
    } finally {
      await pool.query('ALTER VIEW read_model.console_unmatched_payments_away RENAME TO console_unmatched_payments');
    }
  });

  describe('with payments recorded', () => {
    beforeAll(async () => {
      // U-2 and U-3 share verified_at to the microsecond (ties broken by reference); U-0 is matched, so not in the queue.
      await upsertUnmatchedPayments(pool, [
        recorded('U-4', '2026-11-28T12:03:00.000Z'),
        recorded('U-3', '2026-11-28T12:01:00.000001Z'),
        recorded('U-2', '2026-11-28T12:01:00.000001Z'),
        // U-1 as an event written before sealing: its plaintext phone, no masked form.
        recorded('U-1', '2026-11-28T12:00:00.000Z', {
          customer_email: null,
          customer_email_masked: null,
          customer_phone: '+2348000000000',
          amount_minor: 9_007_199_254_740_991,
        }),
        recorded('ws_CO_U-M', '2026-11-28T12:02:00.000Z', {
          provider: 'mpesa',
          amount_minor: null,
          currency: 'KES',
          customer_email: null,
          customer_email_masked: null,
          terms_verified: false,
          provider_status: '0',
          provider_transaction_id: null,
        }),
        recorded('U-0', '2026-11-28T11:00:00.000Z'),
        { kind: 'matched', reference: 'U-0', ledgerRevision: 1, matchedAt: new Date('2026-11-28T12:30:00.000Z') },
      ]);
    });

    it('lists the open ones oldest first, amounts in minor units, the M-Pesa one unverified, customers masked only (never sealed, never plaintext)', async () => {
      const { status, body } = await get('/api/v1/queues/unmatched-payments');
      expect(status).toBe(200);
      expect(body.nextCursor).toBeNull();
      expect(body.items.map((i: { reference: string }) => i.reference)).toEqual(['U-1', 'U-2', 'U-3', 'ws_CO_U-M', 'U-4']);
      expect(body.items[1].customer).toEqual({ email: 'U•••@example.com', phone: null });
      expect(JSON.stringify(body)).not.toMatch(/sealed:|U-\d@example\.com|8000000000/);
      expect(body.items[0]).toEqual({
        reference: 'U-1',
        provider: 'paystack',
        amountMinor: 9_007_199_254_740_991,
        currency: 'NGN',
        customer: { email: null, phone: '+234•••000' },
        termsVerified: true,
        providerStatus: 'success',
        providerTransactionId: 'tx-U-1',
        verifiedAt: '2026-11-28T12:00:00.000Z',
      });
      expect(body.items[3]).toEqual({
        reference: 'ws_CO_U-M',
        provider: 'mpesa',
        amountMinor: null,
        currency: 'KES',
        customer: { email: null, phone: null },
        termsVerified: false,
        providerStatus: '0',
        providerTransactionId: null,
        verifiedAt: '2026-11-28T12:02:00.000Z',
      });
    });

    it('pages by cursor, every open row once, ties broken by reference to the microsecond', async () => {
      const all = ['U-1', 'U-2', 'U-3', 'ws_CO_U-M', 'U-4'];
      expect(await drain('unmatched-payments', 1)).toEqual({ refs: all, pages: 5 });
      expect(await drain('unmatched-payments', 2)).toEqual({ refs: all, pages: 3 });
      expect(await drain('unmatched-payments', 5)).toEqual({ refs: all, pages: 1 });
    });
  });
});

describe('answers', () => {
  it('conform to the schemas of the OpenAPI document (docs/api/console-openapi.json)', () => {
    expect(answers.violations).toEqual([]);
    expect([...answers.checked].sort()).toEqual(
      expect.arrayContaining([
        'GET /api/v1/queues/held-in-review',
        'GET /api/v1/queues/manual-review',
        'GET /api/v1/queues/state-mismatch',
        'GET /api/v1/queues/unmatched-payments',
        'GET /api/v1/transactions/:reference',
      ]),
    );
  });
});

describe('the disputes queue, and the money after settlement on the transaction page', () => {
  /** A money fact as the projector appends it (docs/state-machine.md, "The money after settlement"). */
  const fact = (reference: string, event: MoneyMovementEvent) =>
    moneyMovementLedgerEvent(event, {
      provider: 'paystack',
      userId: `user-${reference}`,
      entitlement: 'pro',
      eventId: randomUUID(),
      correlationId: 'c',
      causationId: 'k',
    });
  const base = (reference: string, providerId: string, amountMinor: number) => ({
    reference,
    verificationId: 'v',
    trigger: 'webhook_received' as const,
    decidedAt: Date.parse('2026-11-26T10:00:00Z'),
    providerId,
    providerStatus: 'awaiting-merchant-feedback',
    amountMinor,
    currency: 'NGN',
    createdAt: Date.parse('2026-11-26T09:00:00Z'),
  });

  beforeAll(async () => {
    await seedTransaction('D-1', 'SETTLED_CONSENSUS', 'UNLOCKED', '2026-11-22T10:00:00Z');
    await seedTransaction('D-2', 'SETTLED_CONSENSUS', 'UNLOCKED', '2026-11-23T10:00:00Z');
    const ledger = new PostgresLedger(pool);
    // D-1: a partial refund, then a dispute still open. D-2: a dispute opened and lost.
    await ledger.append(
      transactionStream('D-1'),
      [
        fact('D-1', {
          type: 'RefundRecorded',
          data: { ...base('D-1', '501', 1000), providerStatus: 'processed', full: false, returnedMinor: 1000, moneyState: 'partially_refunded' },
        }),
        fact('D-1', { type: 'DisputeOpened', data: { ...base('D-1', '77', 4000), reason: 'fraudulent', returnedMinor: 1000, moneyState: 'disputed' } }),
      ],
      'no_stream',
    );
    await ledger.append(
      transactionStream('D-2'),
      [
        fact('D-2', { type: 'DisputeOpened', data: { ...base('D-2', '78', 5000), reason: 'duplicate', returnedMinor: 0, moneyState: 'disputed' } }),
        fact('D-2', { type: 'DisputeResolved', data: { ...base('D-2', '78', 5000), outcome: 'lost', returnedMinor: 5000, moneyState: 'charged_back' } }),
      ],
      'no_stream',
    );
    await pool.query(`UPDATE read_model.transaction_status SET money_state = 'disputed', returned_minor = 1000, money_revision = 1 WHERE reference = 'D-1'`);
    await pool.query(
      `UPDATE read_model.transaction_status SET money_state = 'charged_back', returned_minor = 5000, money_revision = 1 WHERE reference = 'D-2'`,
    );
  });

  it('lists the payments with a dispute still open, each open dispute with its amount, reason and when it was opened', async () => {
    const { status, body } = await get('/api/v1/queues/disputes');
    expect(status).toBe(200);
    expect(body.items).toEqual([
      expect.objectContaining({
        reference: 'D-1',
        state: 'SETTLED_CONSENSUS',
        moneyState: 'disputed',
        returnedMinor: 1000,
        disputes: [{ providerId: '77', amountMinor: 4000, reason: 'fraudulent', openedAt: '2026-11-26T09:00:00.000Z' }],
      }),
    ]);
    expect((await drain('disputes', 1)).refs).toEqual(['D-1']);
  });

  it("shows the money state and each money fact on the transaction's timeline with what the provider said", async () => {
    const { status, body } = await get('/api/v1/transactions/D-2');
    expect(status).toBe(200);
    expect(body.transaction).toMatchObject({ state: 'SETTLED_CONSENSUS', moneyState: 'charged_back', returnedMinor: 5000 });
    expect(body.timeline.map((e: { type: string }) => e.type)).toEqual(['DisputeOpened', 'DisputeResolved']);
    expect(body.timeline[1].movement).toEqual({
      kind: 'dispute',
      providerId: '78',
      providerStatus: 'awaiting-merchant-feedback',
      amountMinor: 5000,
      currency: 'NGN',
      createdAt: '2026-11-26T09:00:00.000Z',
      moneyState: 'charged_back',
      returnedMinor: 5000,
      reason: null,
      outcome: 'lost',
      failedChecks: [],
    });
  });
});
