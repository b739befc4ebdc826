import { Secret } from '@settle/config';
import { CircuitState } from 'cockatiel';
import { afterEach, describe, expect, it } from 'vitest';
import { PaystackProvider, ProviderMetrics, StripeProvider, type BackoffSettings, type BreakerSettings } from '@settle/providers';
import { Registry } from 'prom-client';
import { expectation } from '../fixtures.js';
import { sendJson, startLocalServer, type LocalServer } from '../local-server.js';

const success = {
  status: true,
  message: 'Verification successful',
  data: { id: 1, status: 'success', reference: 'ref_1', amount: 40_000, currency: 'NGN', customer: { email: 'ada@example.com' } },
};

let server: LocalServer | undefined;
const providers: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await server?.close();
  server = undefined;
});

function paystack(baseUrl: string, retry: BackoffSettings, breaker?: Partial<BreakerSettings>, metrics?: ProviderMetrics): PaystackProvider {
  const provider = new PaystackProvider({ baseUrl, secretKey: new Secret('sk_test_local'), timeoutMs: 2000, retry, breaker, metrics });
  providers.push(provider);
  return provider;
}

const request = { reference: 'ref_1', expectation: expectation({ reference: 'ref_1', provider: 'paystack' }) };

describe('Retry-After is honoured when retrying (429, 502, 503, 504)', () => {
  it('waits the delay-seconds of a 503 before the next attempt, instead of the tiny jittered backoff', async () => {
    server = await startLocalServer((req, res) =>
      server!.requests.length === 1 ? sendJson(res, 503, { status: false }, { 'retry-after': '1' }) : sendJson(res, 200, success),
    );
    const verdict = await paystack(server.baseUrl, { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5000 }).verify(request);
    expect(verdict.kind).toBe('cleared');
    expect(server.requests).toHaveLength(2);
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(980);
    expect(gap).toBeLessThan(2500);
  });

  it('reads an HTTP-date Retry-After against the answer’s Date header (429)', async () => {
    server = await startLocalServer((req, res) => {
      if (server!.requests.length > 1) return sendJson(res, 200, success);
      const now = Math.floor(Date.now() / 1000) * 1000;
      sendJson(res, 429, { status: false }, { date: new Date(now).toUTCString(), 'retry-after': new Date(now + 1000).toUTCString() });
    });
    const verdict = await paystack(server.baseUrl, { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5000 }).verify(request);
    expect(verdict.kind).toBe('cleared');
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(980);
  });

  it('caps a long Retry-After at maxDelayMs, and gives up as unreachable after the last attempt', async () => {
    server = await startLocalServer((req, res) => sendJson(res, 502, { status: false }, { 'retry-after': '3600' }));
    const started = performance.now();
    const verdict = await paystack(server.baseUrl, { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 250 }).verify(request);
    expect(verdict).toEqual({ kind: 'unreachable', cause: 'PROVIDER.BAD_GATEWAY' });
    expect(server.requests).toHaveLength(2);
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(240);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('without Retry-After a 503 is retried with the jittered backoff', async () => {
    server = await startLocalServer((req, res) => (server!.requests.length < 3 ? sendJson(res, 503, 'Service Unavailable') : sendJson(res, 200, success)));
    const verdict = await paystack(server.baseUrl, { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 50 }).verify(request);
    expect(verdict.kind).toBe('cleared');
    expect(server.requests).toHaveLength(3);
  });
});

describe('per-provider circuit breaker around the retries', () => {
  it('opens once the window holds its minimum of verifications and most failed, then answers CIRCUIT_OPEN without calling, and closes after a good probe', async () => {
    let healthy = false;
    server = await startLocalServer((req, res) => (healthy ? sendJson(res, 200, success) : sendJson(res, 502, 'Bad Gateway')));
    const provider = paystack(server.baseUrl, { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 }, { minimumVerifications: 3, halfOpenAfterMs: 300 });

    for (let i = 0; i < 3; i++) {
      expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.BAD_GATEWAY' });
    }
    // Each verification made its two attempts: one breaker sample each.
    expect(server.requests).toHaveLength(6);
    expect(provider.policy.breaker.state).toBe(CircuitState.Open);

    expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.CIRCUIT_OPEN' });
    expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.CIRCUIT_OPEN' });
    expect(server.requests).toHaveLength(6);

    healthy = true;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await provider.verify(request)).kind).toBe('cleared');
    expect(server.requests).toHaveLength(7);
    expect(provider.policy.breaker.state).toBe(CircuitState.Closed);
  });

  it('a minority of references that keep failing never opens it, however many fail in a row', async () => {
    let down = false;
    server = await startLocalServer((req, res) => (down || req.url?.includes('storm') ? sendJson(res, 502, 'Bad Gateway') : sendJson(res, 200, success)));
    const provider = paystack(server.baseUrl, { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 5 }, { minimumVerifications: 4, halfOpenAfterMs: 60_000 });
    for (let i = 0; i < 8; i++) expect((await provider.verify(request)).kind).toBe('cleared');
    // Six failures in a row (a consecutive-failure breaker of 5 would have opened): 6 of 14 is under half.
    for (let i = 0; i < 6; i++) {
      expect(await provider.verify({ ...request, reference: `storm_${i}` })).toEqual({ kind: 'unreachable', cause: 'PROVIDER.BAD_GATEWAY' });
    }
    expect(provider.policy.breaker.state).toBe(CircuitState.Closed);
    expect((await provider.verify(request)).kind).toBe('cleared');
    // The provider down: failures become the majority of the window and it opens.
    down = true;
    for (let i = 0; i < 9; i++) await provider.verify(request);
    expect(provider.policy.breaker.state).toBe(CircuitState.Open);
    expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.CIRCUIT_OPEN' });
  });

  it('a failed probe opens the circuit again', async () => {
    server = await startLocalServer((req, res) => sendJson(res, 504, 'Gateway Timeout'));
    const provider = paystack(server.baseUrl, { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 5 }, { minimumVerifications: 2, halfOpenAfterMs: 200 });
    await provider.verify(request);
    await provider.verify(request);
    expect(provider.policy.breaker.state).toBe(CircuitState.Open);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.GATEWAY_TIMEOUT' });
    expect(provider.policy.breaker.state).toBe(CircuitState.Open);
    expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.CIRCUIT_OPEN' });
    expect(server.requests).toHaveLength(3);
  });

  it('answers that show the provider is up (401, 400 not found) never open it', async () => {
    server = await startLocalServer((req, res) =>
      req.url?.includes('missing')
        ? sendJson(res, 400, { status: false, message: 'Transaction reference not found' })
        : sendJson(res, 401, { status: false, message: 'Invalid key' }),
    );
    const provider = paystack(server.baseUrl, { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 }, { minimumVerifications: 2, halfOpenAfterMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.AUTH_REJECTED' });
      expect(await provider.verify({ ...request, reference: 'missing' })).toEqual({ kind: 'not_found' });
    }
    expect(server.requests).toHaveLength(6);
    expect(provider.policy.breaker.state).toBe(CircuitState.Closed);
  });

  it('breakers are per provider instance', async () => {
    server = await startLocalServer((req, res) =>
      req.url?.startsWith('/v1/') ? sendJson(res, 404, { error: { code: 'resource_missing', type: 'invalid_request_error' } }) : sendJson(res, 502, 'x'),
    );
    const down = paystack(server.baseUrl, { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 5 }, { minimumVerifications: 1, halfOpenAfterMs: 60_000 });
    const stripe = new StripeProvider({
      baseUrl: server.baseUrl,
      secretKey: new Secret('sk_test_local'),
      timeoutMs: 2000,
      retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 5 },
      breaker: { minimumVerifications: 1 },
    });
    providers.push(stripe);
    await down.verify(request);
    expect(await down.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.CIRCUIT_OPEN' });
    expect(await stripe.verify({ reference: 'pi_missing', expectation: expectation({ provider: 'stripe' }) })).toEqual({ kind: 'not_found' });
  });
});

describe('provider metrics: call latency, retries and the breaker state', () => {
  /** `labels => value` of a metric's series (histograms: their `_count`), labels as `k=v` joined by commas. */
  async function series(metrics: ProviderMetrics, which: 'callDuration' | 'retries' | 'circuitState'): Promise<Record<string, number>> {
    const { values } = which === 'callDuration' ? await metrics.callDuration.get() : await metrics[which].get();
    const counted = values.filter((v) => !('metricName' in v) || v.metricName === 'settle_provider_request_duration_seconds_count');
    return Object.fromEntries(
      counted.map((v) => [
        Object.entries(v.labels)
          .map(([k, value]) => `${k}=${String(value)}`)
          .join(','),
        v.value,
      ]),
    );
  }

  it('counts every attempt and retry, and moves the breaker gauge from closed to open and back to closed', async () => {
    let healthy = false;
    server = await startLocalServer((req, res) => (healthy ? sendJson(res, 200, success) : sendJson(res, 502, 'Bad Gateway')));
    const metrics = new ProviderMetrics(new Registry());
    const provider = paystack(server.baseUrl, { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 }, { minimumVerifications: 2, halfOpenAfterMs: 300 }, metrics);
    expect(await series(metrics, 'circuitState')).toEqual({
      'provider=paystack,state=closed': 1,
      'provider=paystack,state=open': 0,
      'provider=paystack,state=half_open': 0,
      'provider=paystack,state=isolated': 0,
    });

    await provider.verify(request);
    await provider.verify(request);
    expect(await provider.verify(request)).toEqual({ kind: 'unreachable', cause: 'PROVIDER.CIRCUIT_OPEN' });
    expect(await series(metrics, 'circuitState')).toMatchObject({ 'provider=paystack,state=closed': 0, 'provider=paystack,state=open': 1 });
    // Two verifications of two attempts each; the third made no call.
    expect(await series(metrics, 'callDuration')).toEqual({ 'provider=paystack,operation=verify,outcome=PROVIDER.BAD_GATEWAY': 4 });
    expect(await series(metrics, 'retries')).toEqual({ 'provider=paystack,reason=PROVIDER.BAD_GATEWAY': 2 });

    healthy = true;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await provider.verify(request)).kind).toBe('cleared');
    expect(await series(metrics, 'circuitState')).toMatchObject({
      'provider=paystack,state=closed': 1,
      'provider=paystack,state=open': 0,
      'provider=paystack,state=half_open': 0,
    });
    expect(await series(metrics, 'callDuration')).toMatchObject({ 'provider=paystack,operation=verify,outcome=answered': 1 });
  });
});
