import { randomBytes } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvroCodec, createKafka, HEADERS, headerText, topicNames } from '@settle/messaging';
import { createLogger } from '@settle/platform';
import { waitUntil, type Answer } from '../../scripts/ops/clients.js';
import { infra, startOwnPostgres, type OwnPostgres, startStack, type RunningStack } from '@settle/testing';

/**
 * A PostgreSQL restart under load. The five apps run against a cluster of the test's own; a
 * steady stream of paid checkouts flows through them while the cluster is stopped (fast
 * shutdown: every session is terminated with 57P01) for about 3 s and started again. No app
 * may exit; every checkout, registered before, during or after the outage, must settle with
 * exactly one ledger entry and one settlement event; webhooks that arrive while the database
 * is down are answered 503 (never 200 before they are durable) and the sandbox's retries get
 * every one of them stored once it is back. Each app has a transaction in flight at the stop,
 * so each has a checked-out connection ended under it (the crash this guards against).
 */
const INACTIVITY_MS = 3_000;
/** Load before the restart, while the database is down, and after it is back, milliseconds. */
const LOAD_BEFORE_MS = 5_000;
const DOWN_MS = 3_000;
const LOAD_AFTER_MS = 4_000;
/** How long the outbox tables are held locked before the stop, milliseconds. */
const LOCKED_MS = 600;
/** A new checkout every this many milliseconds. */
const SPACING_MS = 200;

let postgres: OwnPostgres;
let stack: RunningStack;
let reader: Consumer;
/** Settlement events read from the settlements topic: event id per record, by reference. */
const settlements = new Map<string, string[]>();
/** Records read from the dead-letter topic (the outage must send nothing there). */
let deadLetters = 0;

beforeAll(async () => {
  postgres = await startOwnPostgres();
  stack = await startStack({
    inactivityMs: INACTIVITY_MS,
    adminDatabaseUrl: postgres.url,
    // A real provider retries a 5xx webhook for hours; ten retries (backoff up to 5 s) outlast the outage.
    env: { 'provider-sandbox': { SANDBOX_WEBHOOK_RETRIES: '10' } },
  });
  const topics = topicNames(stack.topicPrefix);
  const kafka = createKafka('database-restart-reader', infra.kafkaBrokers, createLogger('database-restart-reader', 'fatal'));
  const codec = AvroCodec.connect(infra.registryUrl, topics);
  reader = kafka.consumer({ groupId: `${stack.topicPrefix}-reader` });
  await reader.connect();
  await reader.subscribe({ topics: [topics.settlements, topics.deadLetter], fromBeginning: true });
  await reader.run({
    eachMessage: async ({ topic, message }) => {
      if (topic === topics.deadLetter) {
        deadLetters += 1;
        return;
      }
      if (headerText(message.headers, HEADERS.eventType) !== 'SettlementRecorded') return;
      const event = await codec.decode(message.value, message.headers);
      const ids = settlements.get(event.payload.reference) ?? [];
      ids.push(event.payload.event_id);
      settlements.set(event.payload.reference, ids);
    },
  });
});

afterAll(async () => {
  await reader?.disconnect();
  await stack?.stop();
  await postgres?.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Status codes of the answers that were refused (5xx) or not answered (0) before one was accepted. */
const refusedStatuses: number[] = [];

/** Calls as an upstream service would: again after a 5xx or a network error, until `expected` comes back. */
async function untilAccepted<T>(what: string, call: () => Promise<Answer<T>>, expected: number): Promise<Answer<T>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await call().catch(() => null);
    if (answer?.status === expected) return answer;
    if (answer && answer.status < 500) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    refusedStatuses.push(answer?.status ?? 0);
    const exited = stack.exited();
    if (exited.length > 0) throw new Error(`${what}: apps exited: ${JSON.stringify(exited)}`);
    if (Date.now() > deadline) throw new Error(`${what} still refused after 60 s (last ${answer?.status ?? 'no answer'})`);
    await sleep(250);
  }
}

/** One paid checkout; the webhook is sent up to 2.5 s after the payment, so some land in the outage. */
async function paidCheckout(reference: string): Promise<{ reference: string; registeredAt: number }> {
  const amount = 250_000;
  const email = `payer.${reference}@example.com`;
  const behaviour = { webhook: 'delay' as const, webhook_delay_ms: Math.floor(Math.random() * 2_500) };
  expect((await stack.sandbox.create({ reference, amount, currency: 'NGN', email, behaviour })).status).toBe(201);
  const body = {
    provider: 'paystack',
    reference,
    amount,
    currency: 'NGN',
    user_id: `user-${reference}`,
    customer: { email },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  };
  await untilAccepted(`register ${reference}`, () => stack.ingestion.register(body), 202);
  const registeredAt = Date.now();
  expect((await stack.sandbox.pay(reference)).status).toBe(200);
  await untilAccepted(`complete ${reference}`, () => stack.ingestion.complete(reference), 202);
  return { reference, registeredAt };
}

/** `GET /health` every 200 ms until stopped: the statuses seen. */
function sampleHealth(): { stop: () => Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const status = await fetch(`${stack.ingestionUrl}/health`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.status,
        () => 0,
      );
      statuses.push(status);
      await sleep(200);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return statuses;
    },
  };
}

async function webhookMetric(outcome: string): Promise<number> {
  const text = await fetch(`${stack.ingestionUrl}/metrics`).then((r) => r.text());
  const line = text.split('\n').find((l) => l.startsWith('settle_webhooks_total{') && l.includes('provider="paystack"') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('a PostgreSQL restart under load', () => {
  it('no app exits, and every checkout settles once, with its webhook stored once and one settlement event', async () => {
    const flows: Array<Promise<{ reference: string; registeredAt: number }>> = [];
    let producing = true;
    const producer = (async () => {
      while (producing) {
        const flow = paidCheckout(`ref_pgr_${randomBytes(6).toString('hex')}`);
        flow.catch(() => undefined); // awaited below with the others; a failure fails the test there
        flows.push(flow);
        await sleep(SPACING_MS);
      }
    })();

    await sleep(LOAD_BEFORE_MS);
    const health = sampleHealth();
    const outageStarted = Date.now();
    // Every app has a transaction in flight when the server stops (what heavy load gives by
    // chance): each one's outbox relay, polling every 250 ms, waits on these locks.
    const locker = await stack.db.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE ingestion.outbox, verifier.outbox, ledger.outbox, sweeper.outbox IN ACCESS EXCLUSIVE MODE');
    await sleep(LOCKED_MS);
    await postgres.restart({ downMs: DOWN_MS });
    locker.release(new Error('ended by the restart'));
    const outageEnded = Date.now();
    await sleep(LOAD_AFTER_MS);
    producing = false;
    await producer;
    const checkouts = await Promise.all(flows);
    const healthStatuses = await health.stop();
    const references = checkouts.map((c) => c.reference);

    // Load on both sides of the outage, and requests that were refused during it.
    expect(checkouts.filter((c) => c.registeredAt < outageStarted).length).toBeGreaterThan(10);
    expect(checkouts.filter((c) => c.registeredAt > outageEnded).length).toBeGreaterThan(10);
    expect(refusedStatuses.length).toBeGreaterThan(0);
    // The database being down is a 503 (retry later), never a 500.
    expect(new Set(refusedStatuses.filter((s) => s !== 0))).toEqual(new Set([503]));
    expect(healthStatuses).toContain(503);
    expect(healthStatuses.at(-1)).toBe(200);

    await waitUntil('every checkout to settle', 60_000, async () => {
      const { rows } = await stack.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM read_model.transaction_status WHERE reference = ANY($1) AND state = 'SETTLED_CONSENSUS'`,
        [references],
      );
      return rows[0]!.n === references.length ? true : undefined;
    });

    const ledger = await stack.db.query<{ stream_id: string; events: string[] }>(
      'SELECT stream_id, array_agg(event_type ORDER BY revision) AS events FROM ledger.events WHERE stream_id = ANY($1) GROUP BY stream_id',
      [references.map((r) => `transaction-${r}`)],
    );
    expect(ledger.rows).toHaveLength(references.length);
    for (const row of ledger.rows) expect(row.events, row.stream_id).toEqual(['TransactionSettled']);

    // Every webhook was delivered (a 200, after the sandbox's retries where the answer was 503) and stored once.
    const inbox = await stack.db.query<{ reference: string; n: number }>(
      'SELECT reference, count(*)::int AS n FROM ingestion.webhook_inbox WHERE reference = ANY($1) AND signature_valid GROUP BY reference',
      [references],
    );
    expect(inbox.rows).toHaveLength(references.length);
    expect(inbox.rows.every((r) => r.n === 1)).toBe(true);
    const sent = await Promise.all(references.map(async (r) => (await stack.sandbox.inspect(r)).body.webhooksSent));
    expect(sent.every((n) => n === 1)).toBe(true);
    expect(await webhookMetric('not_durable')).toBeGreaterThan(0);
    expect(stack.logs('provider-sandbox')).not.toContain('webhook delivery gave up');

    // One settlement per reference. A relay that loses the database between Kafka's ack and its
    // commit publishes the same rows again, so a record may repeat, always with the same event id:
    // a consumer de-duplicating by event id sees exactly one settlement per reference.
    await waitUntil('the ledger outbox to drain and every settlement to be read', 60_000, async () => {
      const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger.outbox');
      return rows[0]!.n === 0 && references.every((r) => settlements.has(r)) ? true : undefined;
    });
    const repeated = references.filter((r) => settlements.get(r)!.length > 1);
    for (const reference of references) expect(new Set(settlements.get(reference)).size, reference).toBe(1);
    console.info(
      `database restart: ${references.length} checkouts, ${refusedStatuses.length} refused calls, ${repeated.length} settlement records re-published with their event id`,
    );
    expect(deadLetters).toBe(0);

    // Nothing exited, nothing escaped, and every app with a pool felt the restart.
    expect(stack.exited()).toEqual([]);
    for (const app of ['ingestion', 'verifier', 'ledger-projector', 'sweeper']) {
      const logs = stack.logs(app);
      expect(logs, app).not.toMatch(/unhandled promise rejection|uncaught exception/);
      expect(logs, app).toContain('database connection lost');
    }
  });
});
