/**
 * Entitlement delivery end to end: the six apps as processes on the real infrastructure, the
 * example customer backend (the receiver kit from its packed tarball, its business logic made
 * to fail its first run of every event) and a customer endpoint stand-in, each its own process.
 * A paid checkout becomes a ledger grant, an entitlement event on Kafka, and signed deliveries
 * that both endpoints verify; the admin API manages endpoints and shows every attempt. The apps
 * trace (OpenTelemetry, OTLP/JSON to a receiver of the test's own), and one checkout's path from
 * the webhook to the delivery is one trace.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The receiver kit as customers install it (it ships on its own, so it is not a workspace alias).
import { fetchReceiptProof, receiptOf, verifyReceipt } from '../../libs/receiver/src/index.js';
import { waitUntil } from '../../scripts/ops/clients.js';
import { PostgresLedger, verifyLedger } from '@settle/ledger';
import { createPool } from '@settle/platform';
import {
  startEndpointProcess,
  type EndpointProcess,
  type ReceivedDelivery,
  startStack,
  type RunningStack,
  type StackApp,
  startTraceReceiver,
  type ReceivedSpan,
  type TraceReceiver,
} from '@settle/testing';

let stack: RunningStack;
let endpoint: EndpointProcess;
let endpointId: string;
let secret: string;
let traces: TraceReceiver;

beforeAll(async () => {
  traces = await startTraceReceiver();
  const traced: StackApp[] = ['ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher'];
  stack = await startStack({
    inactivityMs: 3_000,
    customerBackend: { env: { EXAMPLE_FAIL_FIRST_RUNS: '1', RETRY_INITIAL_DELAY_MS: '100' } },
    env: Object.fromEntries(traced.map((app) => [app, traces.env()])),
  });
  endpoint = await startEndpointProcess({ secrets: [] });
  const created = await stack.dispatcher.createEndpoint({ url: endpoint.url, description: 'the customer backend' });
  expect(created.status).toBe(201);
  endpointId = created.body.id;
  secret = created.body.secret;
  await endpoint.control([], undefined, [secret]);
});

afterAll(async () => {
  await endpoint?.stop();
  await stack?.stop();
  await traces?.stop();
});

/** A paid Paystack checkout of `userId`, settled through the pipeline. */
async function paidCheckout(userId: string, accessPeriod: string): Promise<string> {
  const reference = `ref_dlv_${randomBytes(6).toString('hex')}`;
  const email = `payer.${reference}@example.com`;
  expect((await stack.sandbox.create({ reference, amount: 250_000, currency: 'NGN', email })).status).toBe(201);
  const registered = await stack.ingestion.register({
    provider: 'paystack',
    reference,
    amount: 250_000,
    currency: 'NGN',
    user_id: userId,
    customer: { email },
    entitlement: 'pro-monthly',
    access_period: accessPeriod,
  });
  expect(registered.status).toBe(202);
  expect((await stack.sandbox.pay(reference)).status).toBe(200);
  expect((await stack.ingestion.complete(reference)).status).toBe(202);
  return reference;
}

async function deliveryFor(reference: string): Promise<ReceivedDelivery & { payload: Record<string, string> }> {
  return waitUntil(`the delivery of ${reference}`, 30_000, async () => {
    const hit = (await endpoint.received()).find((r) => JSON.parse(r.body).reference === reference);
    return hit ? { ...hit, payload: JSON.parse(hit.body) as Record<string, string> } : undefined;
  });
}

describe('a paid checkout reaches the customer endpoint as a signed entitlement event', () => {
  it('first as subscription_started, then as subscription_renewed with the later expiry', async () => {
    const user = `user-${randomBytes(4).toString('hex')}`;
    const first = await deliveryFor(await paidCheckout(user, 'P1M'));
    expect(first).toMatchObject({ verified: true, signatures: 1, answered: 200 });
    expect(first.payload).toMatchObject({ event: 'subscription_started', user_id: user, entitlement: 'pro-monthly', access_period: 'P1M' });
    expect(first.webhookId).toBe(first.payload.event_id);
    expect(Object.keys(first.payload).sort()).toEqual([
      'access_period',
      'entitlement',
      'event',
      'event_id',
      'expires_at',
      'receipt',
      'reference',
      'revision',
      'settled_at',
      'user_id',
    ]);

    // The receipt: where the ledger recorded the grant; once a signed checkpoint covers it, the
    // dispatcher proves it, and the kit verifies the proof with the key the projector published.
    const receipt = receiptOf(first.payload);
    expect(receipt).toMatchObject({ eventId: first.payload.event_id });
    const { rows } = await stack.db.query<{ position: string; stream_hash: string }>('SELECT position, stream_hash FROM ledger.events WHERE event_id = $1', [
      first.payload.event_id,
    ]);
    expect({ ledgerPosition: receipt!.ledgerPosition, ledgerHash: receipt!.ledgerHash }).toEqual({
      ledgerPosition: Number(rows[0]!.position),
      ledgerHash: rows[0]!.stream_hash,
    });
    const proof = await waitUntil('a signed checkpoint covering the grant', 20_000, async () => {
      const fetched = await fetchReceiptProof({ baseUrl: stack.dispatcherUrl, apiKey: stack.secretValues().apiKey!, eventId: receipt!.eventId });
      return fetched.status === 'proven' ? fetched.proof : undefined;
    });
    const keysDir = join(stack.checkpointDir, 'keys');
    const keys = readdirSync(keysDir).map((f) => readFileSync(join(keysDir, f), 'utf8').trim());
    expect(verifyReceipt(receipt!, proof, keys, { origin: 'settle.dev/ledger/local' })).toMatchObject({ verified: true });

    const second = await deliveryFor(await paidCheckout(user, 'P1Y'));
    expect(second.payload).toMatchObject({ event: 'subscription_renewed', user_id: user });
    // Renewed before expiry: the year is added to the first month's end.
    const expected = new Date(first.payload.expires_at!);
    expected.setUTCFullYear(expected.getUTCFullYear() + 1);
    expect(second.payload.expires_at).toBe(expected.toISOString());

    const granted = await stack.ingestion.entitlements(user);
    expect(granted.body.entitlements).toEqual([
      expect.objectContaining({
        entitlement: 'pro-monthly',
        expires_at: second.payload.expires_at,
        grants: 2,
        last_event: 'subscription_renewed',
        last_event_id: second.payload.event_id,
      }),
    ]);
    // The two endpoints are delivered independently: the customer backend's delivery may still be
    // in flight (claimed, so pending) when the test endpoint has already answered.
    const attempts = await waitUntil('both deliveries of the renewal to finish', 30_000, async () => {
      const answer = await stack.dispatcher.deliveriesOf(second.payload.event_id!);
      const { deliveries } = answer.body;
      return deliveries.length === 2 && deliveries.every((d) => d.state !== 'pending') ? answer : undefined;
    });
    expect(attempts.body.deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ endpoint_id: endpointId, state: 'delivered', attempts: 1 }),
        expect.objectContaining({ endpoint_id: stack.customer!.endpointId, state: 'delivered', attempts: 1 }),
      ]),
    );

    // The example customer backend: its business logic failed the first run of each event (on
    // purpose), ran again from the durable record, and committed exactly once per event_id; its
    // access expiry is the later one.
    const customer = stack.customer!;
    const runs = await waitUntil('both events to run at the customer backend', 30_000, async () => {
      const { rows } = await customer.db.query<{ event_id: string; event: string; expires_at: Date }>(
        'SELECT event_id, event, expires_at FROM entitlement_runs WHERE user_id = $1 ORDER BY expires_at',
        [user],
      );
      return rows.length === 2 ? rows : undefined;
    });
    expect(runs.map((r) => [r.event_id, r.event])).toEqual([
      [first.payload.event_id, 'subscription_started'],
      [second.payload.event_id, 'subscription_renewed'],
    ]);
    const access = (await (await fetch(`${customer.url}/access/${user}/pro-monthly`)).json()) as { expires_at: string };
    expect(access.expires_at).toBe(second.payload.expires_at);
    expect(customer.logs()).toMatch(/event run failed; will retry/);
    expect(customer.logs()).not.toContain(customer.secret);
  });

  it('a rotated secret signs with both secrets during the overlap', async () => {
    const rotated = await stack.dispatcher.rotateSecret(endpointId, 60_000);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    await endpoint.control([], undefined, [rotated.body.secret]);
    const delivery = await deliveryFor(await paidCheckout(`user-${randomBytes(4).toString('hex')}`, 'P30D'));
    expect(delivery).toMatchObject({ verified: true, signatures: 2 });
    await endpoint.control([], undefined, [secret]);
    const withOld = await deliveryFor(await paidCheckout(`user-${randomBytes(4).toString('hex')}`, 'P30D'));
    expect(withOld).toMatchObject({ verified: true, signatures: 2 });
    secret = rotated.body.secret;
    await endpoint.control([], undefined, [secret]);
  });
});

describe('one trace per request chain, across the apps (OpenTelemetry)', () => {
  /** The spans from `leaf` up to its trace's root, once every one of them was exported. */
  async function pathToRoot(leaf: ReceivedSpan): Promise<ReceivedSpan[]> {
    return waitUntil(`the spans from ${leaf.name} up to its root`, 20_000, async () => {
      const byId = new Map(traces.spans().map((s) => [s.spanId, s]));
      const path = [leaf];
      for (let span = leaf; span.parentSpanId;) {
        const parent = byId.get(span.parentSpanId);
        if (!parent) return undefined;
        expect(parent.traceId).toBe(leaf.traceId);
        path.push(parent);
        span = parent;
      }
      return path.reverse();
    });
  }

  it('the webhook, the verification, the ledger and the delivery of one checkout are one trace, chained by parent span ids', async () => {
    const reference = await paidCheckout(`user-${randomBytes(4).toString('hex')}`, 'P1M');
    const received = await deliveryFor(reference);
    const attempt = await waitUntil('the delivery attempt span', 20_000, async () =>
      traces
        .spans()
        .find(
          (s) =>
            s.service === 'dispatcher' &&
            s.name === 'POST' &&
            s.attributes['settle.endpoint_id'] === endpointId &&
            s.attributes['settle.reference'] === reference,
        ),
    );
    const topic = (name: string) => `${stack.topicPrefix}.${name}.v1`;
    const path = await pathToRoot(attempt);
    expect(path.map((s) => [s.service, s.name])).toEqual([
      ['ingestion', 'POST /v1/webhooks/:provider'],
      ['ingestion', `send ${topic('transaction-events')}`],
      ['verifier', `process ${topic('transaction-events')}`],
      ['verifier', 'verify paystack'],
      ['verifier', `send ${topic('consensus-results')}`],
      ['ledger-projector', `process ${topic('consensus-results')}`],
      ['ledger-projector', `send ${topic('entitlement-events')}`],
      ['dispatcher', `process ${topic('entitlement-events')}`],
      ['dispatcher', 'POST'],
    ]);
    // Kinds: server, producer, consumer, internal, producer, consumer, producer, consumer, client.
    expect(path.map((s) => s.kind)).toEqual([2, 4, 5, 1, 4, 5, 4, 5, 3]);
    expect(path[0]!.attributes).toMatchObject({ 'http.route': '/v1/webhooks/:provider', 'http.response.status_code': 200, 'http.request.method': 'POST' });
    expect(path[2]!.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.consumer.group.name': `${stack.topicPrefix}-verifier`,
      'settle.reference': reference,
    });
    expect(path[3]!.attributes).toMatchObject({
      'settle.reference': reference,
      'settle.provider': 'paystack',
      'settle.trigger': 'webhook_received',
      'settle.verdict': 'cleared',
    });
    expect(attempt.attributes).toMatchObject({ 'http.response.status_code': 200 });
    // The customer's endpoint got the attempt's own span as its parent.
    expect(received.traceparent).toBe(`00-${attempt.traceId}-${attempt.spanId}-01`);

    const inTrace = traces.spans().filter((s) => s.traceId === attempt.traceId);
    // The provider was asked in the same trace, beneath the verification (a client span per HTTP call).
    expect(inTrace.find((s) => s.service === 'verifier' && s.kind === 3 && s.parentSpanId === path[3]!.spanId)).toMatchObject({ name: 'GET' });
    // The settlement went out in it too.
    expect(inTrace.some((s) => s.service === 'ledger-projector' && s.name === `send ${topic('settlements')}`)).toBe(true);

    // The registration was a request chain of its own: another trace.
    const registration = traces
      .spans()
      .find((s) => s.service === 'ingestion' && s.name === 'POST /v1/checkouts' && s.attributes['settle.reference'] === reference);
    expect(registration?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(registration!.traceId).not.toBe(attempt.traceId);
  });

  it('exports no secret in any span', () => {
    const exported = traces.bodies().join('\n');
    expect(exported.length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(stack.secretValues())) expect(exported.includes(value), name).toBe(false);
  });
});

describe('the dispatcher admin API', () => {
  const raw = (path: string, init: RequestInit = {}) => fetch(`${stack.dispatcherUrl}${path}`, init);

  it('shows a secret only when it is created or rotated', async () => {
    const listed = await stack.dispatcher.endpoints();
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toMatch(/whsec_/);
    expect(listed.body.endpoints.map((e) => e.id)).toContain(endpointId);
    expect(stack.logs('dispatcher')).not.toContain(secret);
  });

  it('answers every error as problem details with a stable code', async () => {
    const problem = async (response: Response, status: number, code: string) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ status, code });
    };
    await problem(await raw('/v1/admin/endpoints'), 401, 'AUTH.MISSING_API_KEY');
    await problem(await raw('/v1/admin/endpoints', { headers: { authorization: 'Bearer nope' } }), 401, 'AUTH.INVALID_API_KEY');
    const admin = { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' };
    await problem(
      await raw('/v1/admin/endpoints', { method: 'POST', headers: admin, body: JSON.stringify({ url: 'ftp://example.com/hook' }) }),
      400,
      'ENDPOINT.URL_NOT_ALLOWED',
    );
    await problem(
      await raw('/v1/admin/endpoints', { method: 'POST', headers: admin, body: JSON.stringify({ url: 'http://a:b@example.com/' }) }),
      400,
      'ENDPOINT.URL_NOT_ALLOWED',
    );
    await problem(
      await raw('/v1/admin/endpoints', { method: 'POST', headers: admin, body: JSON.stringify({ url: 'https://example.com', event_kinds: ['refund'] }) }),
      400,
      'REQUEST.VALIDATION_FAILED',
    );
    await problem(await raw(`/v1/admin/endpoints/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, { headers: admin }), 404, 'ENDPOINT.NOT_FOUND');
    await problem(await raw('/v1/admin/events/not-a-uuid/deliveries', { headers: admin }), 404, 'EVENT.NOT_FOUND');
  });

  it('deletes an endpoint: 204, then 404, and it receives nothing more', async () => {
    const extra = await stack.dispatcher.createEndpoint({
      url: `${endpoint.url.replace('/webhook/settle', '')}/deleted`,
      event_kinds: ['subscription_renewed'],
    });
    expect(extra.status).toBe(201);
    expect(extra.headers.get('cache-control')).toBe('no-store');
    expect((await stack.dispatcher.deleteEndpoint(extra.body.id)).status).toBe(204);
    expect((await stack.dispatcher.endpoint(extra.body.id)).status).toBe(404);
    expect((await stack.dispatcher.deleteEndpoint(extra.body.id)).status).toBe(404);
    expect((await stack.dispatcher.endpoints()).body.endpoints.map((e) => e.id)).not.toContain(extra.body.id);
  });

  it('disables and re-enables an endpoint; events recorded meanwhile get no delivery until the re-enable records one, then arrive', async () => {
    expect((await stack.dispatcher.setEnabled(endpointId, false)).body).toMatchObject({ enabled: false, disabled_reason: 'admin' });
    const reference = await paidCheckout(`user-${randomBytes(4).toString('hex')}`, 'P1M');
    await waitUntil('the grant to be recorded by the dispatcher', 30_000, async () => {
      const { rows } = await stack.db.query(`SELECT 1 FROM dispatcher.events WHERE reference = $1`, [reference]);
      return rows.length === 1 ? true : undefined;
    });
    expect((await endpoint.received()).some((r) => JSON.parse(r.body).reference === reference)).toBe(false);
    const recorded = async () =>
      (
        await stack.db.query(
          `SELECT 1 FROM dispatcher.deliveries d JOIN dispatcher.events ev USING (event_id) WHERE ev.reference = $1 AND d.endpoint_id = $2`,
          [reference, endpointId],
        )
      ).rows.length;
    expect(await recorded()).toBe(0);
    expect((await stack.dispatcher.setEnabled(endpointId, true)).body).toMatchObject({ enabled: true, disabled_reason: null });
    expect(await recorded()).toBe(1);
    expect((await deliveryFor(reference)).answered).toBe(200);
  });
});

describe('a data subject’s data (docs/privacy.md)', () => {
  it('./settle privacy export gives a user’s registrations, ledger events, access and deliveries; the ledger holds the payer’s email only masked', async () => {
    const user = `user-${randomBytes(4).toString('hex')}`;
    const reference = await paidCheckout(user, 'P1M');
    await deliveryFor(reference);
    const run = spawnSync(process.execPath, [PRIVACY_CLI, 'export', '--user', user], { env: privacyEnv(), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const exported = JSON.parse(run.stdout) as Record<string, Array<Record<string, unknown>>>;
    const email = `payer.${reference}@example.com`;
    expect(exported.checkouts!.map((c) => [c.reference, c.customer_email])).toEqual([[reference, email]]);
    expect(exported.verifier_transactions!.map((t) => t.reference)).toEqual([reference]);
    expect(exported.entitlements!.map((e) => e.user_id)).toEqual([user]);
    expect(exported.deliveries!.map((d) => d.reference)).toEqual([reference]);
    const streams = new Set(exported.ledger_events!.map((e) => e.stream_id));
    expect(streams).toEqual(new Set([`transaction-${reference}`, `entitlement-${user}:pro-monthly`]));
    // The ledger's record of the four checks holds the customer masked, never the address (docs/privacy.md, "Masked forms").
    const ledgerText = JSON.stringify(exported.ledger_events);
    expect(ledgerText).not.toContain(email);
    expect(ledgerText).toContain('email:p•••@example.com');
    // Another user is refused nothing and sees nothing of this one.
    const other = spawnSync(process.execPath, [PRIVACY_CLI, 'export', '--user', `${user}-other`], { env: privacyEnv(), encoding: 'utf8' });
    expect(other.stdout).not.toContain(reference);
    expect(spawnSync(process.execPath, [PRIVACY_CLI, 'export'], { env: privacyEnv(), encoding: 'utf8' }).status).toBe(2);
  });

  it('./settle privacy erase --user: keys destroyed, plaintext cleared, SubjectErased recorded; the chains verify, the check reads erased, the customer backend keeps its access', async () => {
    const user = `user-${randomBytes(4).toString('hex')}`;
    const reference = await paidCheckout(user, 'P1M');
    const email = `payer.${reference}@example.com`;
    const delivered = await deliveryFor(reference);
    const customer = stack.customer!;
    const accessBefore = await waitUntil('the customer backend to grant access', 30_000, async () => {
      const answer = await fetch(`${customer.url}/access/${user}/pro-monthly`);
      return answer.status === 200 ? ((await answer.json()) as { expires_at: string }) : undefined;
    });
    expect(accessBefore.expires_at).toBe(delivered.payload.expires_at);

    expect(spawnSync(process.execPath, [PRIVACY_CLI, 'erase', '--user', user], { env: privacyEnv(), encoding: 'utf8' }).status, 'no reason: refused').toBe(2);
    const erase = spawnSync(process.execPath, [PRIVACY_CLI, 'erase', '--user', user, '--reason', 'DPO-7, e2e'], { env: privacyEnv(), encoding: 'utf8' });
    expect(erase.status, erase.stderr).toBe(0);
    const report = JSON.parse(erase.stdout) as {
      transaction_references: string[];
      destroyed_key_ids: string[];
      erased: Array<{ place: string; rows: number }>;
      remaining: Array<{ place: string; why: string }>;
      ledger_position: number;
    };
    expect(report.transaction_references).toEqual([reference]);
    expect(report.erased).toEqual(expect.arrayContaining([{ place: 'ingestion.checkouts', rows: 1, how: expect.any(String) }]));
    expect(report.remaining.map((r) => r.place)).toContain('the payment provider');
    expect(erase.stderr).toMatch(/recorded as SubjectErased at ledger position \d+/);

    // The merchant's API and the read model show the customer check erased; the other checks stand.
    const status = await stack.ingestion.status(reference);
    expect(status.body).toMatchObject({ state: 'SETTLED_CONSENSUS' });
    const checks = status.body.checks ?? [];
    expect(checks.find((c) => c.check === 'customer')).toMatchObject({ passed: true, expected: 'erased', observed: 'erased' });
    expect(checks.find((c) => c.check === 'amount')).toMatchObject({ expected: '250000' });

    // The plaintext is gone from the working tables; the ledger holds a fact that names no one, and its chains still hold.
    const pool = createPool(stack.databaseUrl, 2);
    try {
      const { rows } = await pool.query('SELECT customer_email, request_sha256 FROM ingestion.checkouts WHERE reference = $1', [reference]);
      expect(rows).toEqual([{ customer_email: null, request_sha256: 'erased' }]);
      const mentions = await pool.query(`SELECT count(*)::int AS n FROM ledger.events WHERE strpos(lower(data::text), lower($1)) > 0`, [email]);
      expect(mentions.rows[0].n).toBe(0);
      const fact = await pool.query<{ event_type: string; data: { transaction_references: string[] } }>(
        'SELECT event_type, data FROM ledger.events WHERE position = $1',
        [report.ledger_position],
      );
      expect(fact.rows[0]).toMatchObject({ event_type: 'SubjectErased', data: { transaction_references: [reference] } });
      expect((await verifyLedger(new PostgresLedger(pool))).broken).toBeNull();
    } finally {
      await pool.end();
    }

    // The export shows the erased fields; the customer backend keeps the access it was granted.
    const exported = JSON.parse(spawnSync(process.execPath, [PRIVACY_CLI, 'export', '--user', user], { env: privacyEnv(), encoding: 'utf8' }).stdout) as Record<
      string,
      Array<Record<string, unknown>>
    >;
    expect(exported.checkouts!.map((c) => [c.reference, c.customer_email])).toEqual([[reference, null]]);
    expect(JSON.stringify(exported)).not.toContain(email);
    const accessAfter = (await (await fetch(`${customer.url}/access/${user}/pro-monthly`)).json()) as { expires_at: string };
    expect(accessAfter.expires_at).toBe(accessBefore.expires_at);
    // A second erasure finds nothing left to clear.
    const again = JSON.parse(
      spawnSync(process.execPath, [PRIVACY_CLI, 'erase', '--user', user, '--reason', 'DPO-7, again'], { env: privacyEnv(), encoding: 'utf8' }).stdout,
    ) as typeof report;
    expect(again.erased.find((e) => e.place === 'ingestion.checkouts')!.rows).toBe(0);
    // After a restore, every recorded erasure is applied again (here: nothing was restored, nothing changes).
    const reapply = spawnSync(process.execPath, [PRIVACY_CLI, 'reapply-erasures'], { env: privacyEnv(), encoding: 'utf8' });
    expect(reapply.status, reapply.stderr).toBe(0);
    expect(reapply.stderr).toMatch(/re-applied \d+ recorded erasures: .* 0 keys destroyed again/);
  });
});

const PRIVACY_CLI = join(import.meta.dirname, '../../dist/scripts/ops/privacy/privacy.js');

/** The environment `./settle privacy` gets from the stack: its database and the privacy vault's master keys. */
function privacyEnv(): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: stack.databaseUrl, SETTLE_PRIVACY_VAULT_MASTER_KEYS: stack.privacyMasterKeys };
}
