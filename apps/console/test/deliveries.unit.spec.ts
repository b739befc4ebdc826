/**
 * The Deliveries pages' pure parts: the dispatcher adapter's translation and error mapping (over a
 * stubbed `fetch`, no network), the service's joins and pages, and the recovery window.
 */
import { Secret } from '@settle/config';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeliveriesService } from '../src/deliveries/deliveries.service.js';
import type { DeliveryAdmin } from '../src/deliveries/delivery-admin.port.js';
import { DispatcherDeliveryAdmin } from '../src/deliveries/dispatcher-delivery-admin.js';
import { parseRecoverSince, RECOVER_MAX_AGE_MS } from '../src/http/requests.js';

const KEY = 'dispatcher-admin-key-for-tests';
const ENDPOINT_ID = '0b7f8c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b';
const EVENT_ID = '2f1c7a3e-5b0d-5e2a-9c41-7d3b2a1f0e9c';

const wireEndpoint = {
  id: ENDPOINT_ID,
  url: 'https://customer.example/webhook/settle',
  description: 'the customer backend',
  event_kinds: ['subscription_started', 'subscription_renewed'],
  enabled: false,
  disabled_reason: 'failing',
  disabled_at: '2026-11-20T10:00:00.000Z',
  failing_since: '2026-11-15T10:00:00.000Z',
  previous_secret_expires_at: null,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
};

const { event_kinds: renamedKinds, ...withoutKinds } = wireEndpoint;
const wireEndpointRenamed = { ...withoutKinds, eventKinds: renamedKinds };

const wireDelivery = {
  delivery_id: 41,
  event_id: EVENT_ID,
  event: 'subscription_started',
  user_id: 'user-42',
  endpoint_id: ENDPOINT_ID,
  state: 'failed',
  attempts: 14,
  next_attempt_at: null,
  delivered_at: null,
  last_status: 500,
  last_error: 'HTTP_500',
  recorded_at: '2026-11-15T10:00:00.000Z',
};

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Stubs `fetch` with one answer (or a thrown error) and records the calls. */
function answer(status: number, body: unknown, calls: Call[] = []): Call[] {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: URL, init: RequestInit) => {
      calls.push({
        url: String(url),
        method: String(init.method),
        headers: init.headers as Record<string, string>,
        body: typeof init.body === 'string' ? JSON.parse(init.body) : null,
      });
      if (body instanceof Error) throw body;
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

const adapter = () => new DispatcherDeliveryAdmin({ baseUrl: 'http://dispatcher.test:3200', adminApiKey: new Secret(KEY), timeoutMs: 1_000 });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('DispatcherDeliveryAdmin', () => {
  it("reads endpoints in the console's terms with the admin key, and drops anything else an answer carries (a secret)", async () => {
    const calls = answer(200, { endpoints: [{ ...wireEndpoint, secret: 'whsec_c2VjcmV0LW5ldmVyLXNob3du' }] });
    const endpoints = await adapter().endpoints();
    expect(endpoints).toEqual([
      {
        id: ENDPOINT_ID,
        url: 'https://customer.example/webhook/settle',
        description: 'the customer backend',
        eventKinds: ['subscription_started', 'subscription_renewed'],
        enabled: false,
        disabledReason: 'failing',
        disabledAt: '2026-11-20T10:00:00.000Z',
        failingSince: '2026-11-15T10:00:00.000Z',
        previousSecretExpiresAt: null,
        createdAt: '2026-11-01T10:00:00.000Z',
        updatedAt: '2026-11-20T10:00:00.000Z',
      },
    ]);
    expect(JSON.stringify(endpoints)).not.toContain('whsec_');
    expect(calls).toEqual([
      {
        url: 'http://dispatcher.test:3200/v1/admin/endpoints',
        method: 'GET',
        headers: expect.objectContaining({ authorization: `Bearer ${KEY}` }),
        body: null,
      },
    ]);
  });

  it("lists deliveries by keyset and reads an event's attempts", async () => {
    const calls = answer(200, { deliveries: [wireDelivery], next_before: null });
    expect(await adapter().deliveries({ state: 'failed', endpointId: ENDPOINT_ID, before: 99, limit: 20 })).toEqual([
      {
        deliveryId: 41,
        eventId: EVENT_ID,
        event: 'subscription_started',
        userId: 'user-42',
        endpointId: ENDPOINT_ID,
        state: 'failed',
        attemptCount: 14,
        nextAttemptAt: null,
        deliveredAt: null,
        lastStatus: 500,
        lastError: 'HTTP_500',
        recordedAt: '2026-11-15T10:00:00.000Z',
      },
    ]);
    expect(calls[0]!.url).toBe(`http://dispatcher.test:3200/v1/admin/deliveries?limit=20&state=failed&endpoint_id=${ENDPOINT_ID}&before=99`);

    const attempt = {
      attempt: 1,
      started_at: '2026-11-15T10:00:00.000Z',
      latency_ms: 85,
      status: null,
      outcome: 'failed',
      error: 'TIMEOUT',
      response_excerpt: null,
      next_attempt_at: '2026-11-15T10:00:05.000Z',
    };
    answer(200, { event_id: EVENT_ID, deliveries: [{ ...wireDelivery, attempt_log: [attempt] }] });
    const [delivery] = await adapter().eventDeliveries(EVENT_ID);
    expect(delivery!.attempts).toEqual([
      {
        attempt: 1,
        at: '2026-11-15T10:00:00.000Z',
        outcome: 'failed',
        httpStatus: null,
        durationMs: 85,
        error: 'TIMEOUT',
        responseExcerpt: null,
        nextAttemptAt: '2026-11-15T10:00:05.000Z',
      },
    ]);
  });

  it('sends a resend to one endpoint or to all, a recovery with its time, and enable or disable', async () => {
    const calls = answer(200, { requeued: 2 });
    expect(await adapter().resend(EVENT_ID, ENDPOINT_ID)).toBe(2);
    expect(await adapter().resend(EVENT_ID)).toBe(2);
    expect(await adapter().recover(ENDPOINT_ID, new Date('2026-11-20T00:00:00Z'))).toBe(2);
    expect(calls.map((c) => [c.method, c.url.replace('http://dispatcher.test:3200', ''), c.body])).toEqual([
      ['POST', `/v1/admin/events/${EVENT_ID}/resend`, { endpoint_id: ENDPOINT_ID }],
      ['POST', `/v1/admin/events/${EVENT_ID}/resend`, {}],
      ['POST', `/v1/admin/endpoints/${ENDPOINT_ID}/recover`, { since: '2026-11-20T00:00:00.000Z' }],
    ]);
    const toggles = answer(200, { ...wireEndpoint, enabled: true, disabled_reason: null, disabled_at: null });
    expect(await adapter().setEnabled(ENDPOINT_ID, true)).toMatchObject({ enabled: true, disabledReason: null });
    await adapter().setEnabled(ENDPOINT_ID, false);
    expect(toggles.map((c) => c.url.split('/').at(-1))).toEqual(['enable', 'disable']);
  });

  it("maps the dispatcher's 404 by its problem code, else by what was asked for", async () => {
    answer(404, { code: 'ENDPOINT.NOT_FOUND', title: 'Endpoint not found', status: 404 });
    await expect(adapter().resend(EVENT_ID, ENDPOINT_ID)).rejects.toMatchObject({ code: 'CONSOLE.ENDPOINT_NOT_FOUND', kind: 'not_found' });
    answer(404, { code: 'EVENT.NOT_FOUND', title: 'Entitlement event not found', status: 404 });
    await expect(adapter().resend(EVENT_ID, ENDPOINT_ID)).rejects.toMatchObject({ code: 'CONSOLE.EVENT_NOT_FOUND', kind: 'not_found' });
    answer(404, 'not json');
    await expect(adapter().eventDeliveries(EVENT_ID)).rejects.toMatchObject({ code: 'CONSOLE.EVENT_NOT_FOUND' });
    await expect(adapter().endpoint(ENDPOINT_ID)).rejects.toMatchObject({ code: 'CONSOLE.ENDPOINT_NOT_FOUND' });
  });

  it.each([
    ['a 500', 500, { code: 'INTERNAL' }],
    ['a 503', 503, { code: 'HEALTH.DATABASE_UNAVAILABLE' }],
    ['a 429', 429, {}],
    ['no answer (connection refused)', 0, new TypeError('fetch failed')],
    ['a time-out', 0, new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
  ])('answers %s as CONSOLE.DISPATCHER_UNAVAILABLE (503, retry)', async (_name, status, body) => {
    answer(status, body);
    await expect(adapter().endpoints()).rejects.toMatchObject({ code: 'CONSOLE.DISPATCHER_UNAVAILABLE', kind: 'unavailable' });
  });

  it.each([
    ['a wrong admin key (401)', 401, { code: 'AUTH.INVALID_ADMIN_KEY' }],
    ['a refused request (400)', 400, { code: 'REQUEST.VALIDATION_FAILED' }],
    ['an answer of another shape', 200, { endpoints: [{ id: 1 }] }],
    ['an answer with a renamed field (event_kinds as eventKinds)', 200, { endpoints: [{ ...wireEndpointRenamed }] }],
    ['an answer with a state the document does not list', 200, { endpoints: [{ ...wireEndpoint, event_kinds: ['subscription_paused'] }] }],
    ['an answer that is not JSON', 200, '<html>'],
  ])('answers %s as CONSOLE.DISPATCHER_REJECTED (500), without the key', async (_name, status, body) => {
    answer(status, body);
    const error = await adapter()
      .endpoints()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONSOLE.DISPATCHER_REJECTED', kind: 'internal' });
    expect(String((error as Error).message)).not.toContain(KEY);
  });
});

describe('DeliveriesService', () => {
  const endpoint = {
    id: ENDPOINT_ID,
    url: 'https://customer.example/webhook/settle',
    description: null,
    eventKinds: ['subscription_started'],
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    previousSecretExpiresAt: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
  };
  const delivery = (id: number, endpointId = ENDPOINT_ID) => ({
    deliveryId: id,
    eventId: EVENT_ID,
    event: 'subscription_started',
    userId: 'user-42',
    endpointId,
    state: 'failed' as const,
    attemptCount: 14,
    nextAttemptAt: null,
    deliveredAt: null,
    lastStatus: 500,
    lastError: 'HTTP_500',
    recordedAt: '2026-11-15T10:00:00.000Z',
  });
  const fake = (rows: ReturnType<typeof delivery>[]): DeliveryAdmin => ({
    endpoints: async () => [endpoint, { ...endpoint, id: 'ffffffff-0000-4000-8000-000000000000', url: 'https://a.example/hook', enabled: false }],
    endpoint: async () => endpoint,
    deliveries: async (q) => rows.slice(0, q.limit),
    eventDeliveries: async () => rows.map((r) => ({ ...r, attempts: [] })),
    resend: async () => 1,
    recover: async () => 1,
    setEnabled: async () => endpoint,
  });

  it('answers 503 CONSOLE.DELIVERY_NOT_CONFIGURED for every read and action without a dispatcher', async () => {
    const service = new DeliveriesService(null);
    await expect(service.endpoints()).rejects.toMatchObject({ code: 'CONSOLE.DELIVERY_NOT_CONFIGURED', kind: 'unavailable' });
    await expect(service.deliveries({ limit: 10 })).rejects.toMatchObject({ code: 'CONSOLE.DELIVERY_NOT_CONFIGURED' });
    expect(() => service.dispatcher()).toThrow(expect.objectContaining({ code: 'CONSOLE.DELIVERY_NOT_CONFIGURED' }));
  });

  it('lists disabled endpoints first, joins endpoint URLs to deliveries (null for a deleted endpoint) and gives a cursor only on a full page', async () => {
    const service = new DeliveriesService(fake([delivery(9), delivery(8, '11111111-1111-4111-8111-111111111111'), delivery(7)]));
    expect((await service.endpoints()).map((e) => e.url)).toEqual(['https://a.example/hook', 'https://customer.example/webhook/settle']);
    const full = await service.deliveries({ limit: 2 });
    expect(full.items.map((d) => [d.deliveryId, d.endpointUrl])).toEqual([
      [9, 'https://customer.example/webhook/settle'],
      [8, null],
    ]);
    expect(full.nextCursor).toBe('8');
    expect((await service.deliveries({ limit: 5 })).nextCursor).toBeNull();
    expect((await service.eventDeliveries(EVENT_ID)).deliveries[0]).toMatchObject({ endpointUrl: 'https://customer.example/webhook/settle', attempts: [] });
  });
});

describe('the recovery window', () => {
  const now = new Date('2026-11-25T10:00:00Z');

  it('takes an ISO time with its offset, up to now and back to 30 days', () => {
    expect(parseRecoverSince({ since: '2026-11-25T10:00:00Z' }, now)).toEqual(now);
    expect(parseRecoverSince({ since: '2026-11-25T11:00:00+02:00' }, now).toISOString()).toBe('2026-11-25T09:00:00.000Z');
    expect(parseRecoverSince({ since: new Date(now.getTime() - RECOVER_MAX_AGE_MS).toISOString() }, now).getTime()).toBe(now.getTime() - RECOVER_MAX_AGE_MS);
  });

  it.each([
    ['a time in the future', { since: '2026-11-25T10:00:01Z' }, 'since is in the future'],
    ['a time more than 30 days ago', { since: '2026-10-26T09:59:59Z' }, 'since is more than 30 days ago'],
    ['a time without an offset', { since: '2026-11-25T09:00:00' }, 'since must be an ISO 8601 time with its offset'],
    ['no time', {}, 'since must be an ISO 8601 time with its offset'],
    ['other fields', { since: '2026-11-25T09:00:00Z', all: true }, expect.any(String)],
  ])('refuses %s with 400 REQUEST.VALIDATION_FAILED', (_name, body, message) => {
    expect(() => parseRecoverSince(body, now)).toThrow(
      expect.objectContaining({ status: 400, code: 'REQUEST.VALIDATION_FAILED', errors: [expect.objectContaining({ message })] }),
    );
  });
});
