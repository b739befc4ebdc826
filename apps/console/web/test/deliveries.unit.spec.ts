import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, setCsrfToken } from '../src/api/client';
import type { DeliveryItem, Endpoint, EndpointDetail, EventDeliveries, TransactionView } from '../src/api/types';
import {
  attemptTotal,
  canResend,
  canToggleEndpoint,
  defaultRecoverSince,
  deliveryStateLabel,
  endpointHealth,
  followingResend,
  isDeliveryNotConfigured,
  RECOVER_MAX_AGE_MS,
  recoverSince,
  requeuedMessage,
  RESEND_FOLLOW_MS,
  toLocalInput,
} from '../src/lib/deliveries';
import { deliveriesQuery } from '../src/lib/query-string';
import { deliveriesHref, endpointHref, eventHref } from '../src/lib/routes';
import { matchRoute } from '../src/pages';
import { DeliveriesPage } from '../src/pages/Deliveries';
import { EndpointPage } from '../src/pages/Endpoint';
import { EventDeliveriesPage } from '../src/pages/EventDeliveries';
import { Layout } from '../src/pages/Layout';
import { TransactionPage } from '../src/pages/Transaction';

// The Deliveries pages: their pure helpers, their addresses, the API client's calls, and the
// pages rendered to HTML from answers already in the query cache (no browser, no requests).

const ENDPOINT_ID = '0b7f8c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b';
const EVENT_ID = '2f1c7a3e-5b0d-5e2a-9c41-7d3b2a1f0e9c';
const NOW = Date.parse('2026-11-25T10:00:00Z');

const endpoint: Endpoint = {
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
};

const delivery: DeliveryItem = {
  deliveryId: 41,
  eventId: EVENT_ID,
  event: 'subscription_started',
  userId: 'user-42',
  endpointId: ENDPOINT_ID,
  endpointUrl: endpoint.url,
  state: 'failed',
  attemptCount: 14,
  nextAttemptAt: null,
  deliveredAt: null,
  lastStatus: 500,
  lastError: 'HTTP_500',
  recordedAt: '2026-11-15T10:00:00.000Z',
};

function render(element: ReactElement, seed: (client: QueryClient) => void = () => undefined): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seed(client);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
}

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('who may act on deliveries', () => {
  it('lets operators and admins resend and recover, and only admins enable or disable an endpoint', () => {
    expect([canResend('viewer'), canResend('operator'), canResend('admin')]).toEqual([false, true, true]);
    expect([canToggleEndpoint('viewer'), canToggleEndpoint('operator'), canToggleEndpoint('admin')]).toEqual([false, false, true]);
  });

  it('tells "delivery not configured" from other failures', () => {
    expect(isDeliveryNotConfigured(new ApiError(503, 'CONSOLE.DELIVERY_NOT_CONFIGURED', 'x'))).toBe(true);
    expect(isDeliveryNotConfigured(new ApiError(503, 'CONSOLE.DISPATCHER_UNAVAILABLE', 'x'))).toBe(false);
    expect(isDeliveryNotConfigured(new Error('CONSOLE.DELIVERY_NOT_CONFIGURED'))).toBe(false);
  });
});

describe('labels', () => {
  it("says an endpoint's health: disabled with why, failing, enabled", () => {
    expect(endpointHealth(endpoint)).toEqual({ label: 'Disabled', tone: 'danger', detail: 'Disabled: failing continuously' });
    expect(endpointHealth({ enabled: false, disabledReason: 'gone', failingSince: null }).detail).toBe('Disabled: it answered 410 Gone');
    expect(endpointHealth({ enabled: false, disabledReason: 'admin', failingSince: null })).toMatchObject({ tone: 'neutral', detail: 'Disabled by an admin' });
    expect(endpointHealth({ enabled: true, disabledReason: null, failingSince: '2026-11-25T09:00:00Z' })).toMatchObject({ label: 'Failing', tone: 'warning' });
    expect(endpointHealth({ enabled: true, disabledReason: null, failingSince: null })).toMatchObject({ label: 'Enabled', tone: 'success' });
  });

  it('calls a failed delivery dead-lettered', () => {
    expect(deliveryStateLabel('failed')).toBe('Dead-lettered');
    expect(deliveryStateLabel('delivered')).toBe('Delivered');
    expect(deliveryStateLabel('something')).toBe('something');
  });

  it('says what a resend or a recovery scheduled', () => {
    expect(requeuedMessage(1, 'resend')).toBe('Resent: 1 delivery scheduled now.');
    expect(requeuedMessage(3, 'recover')).toBe('Recovering: 3 deliveries scheduled now.');
    expect(requeuedMessage(0, 'resend')).toMatch(/^Nothing was resent/);
    expect(requeuedMessage(0, 'recover')).toMatch(/^Nothing to recover/);
  });
});

describe('Recover since', () => {
  it('starts at the failing run, else 24 hours ago, never more than 30 days back, in whole minutes', () => {
    expect(defaultRecoverSince({ failingSince: '2026-11-24T08:15:42.500Z' }, NOW)).toBe(Date.parse('2026-11-24T08:15:00Z'));
    expect(defaultRecoverSince({ failingSince: null }, NOW)).toBe(NOW - 86_400_000);
    expect(defaultRecoverSince({ failingSince: '2026-09-01T00:00:00Z' }, NOW)).toBe(NOW - RECOVER_MAX_AGE_MS);
  });

  it('reads the local input into an ISO time and refuses what the API would', () => {
    const local = toLocalInput(NOW - 3_600_000);
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(recoverSince(local, NOW)).toEqual({ ok: true, since: new Date(NOW - 3_600_000).toISOString() });
    expect(recoverSince(toLocalInput(NOW + 120_000), NOW)).toEqual({ ok: false, message: 'The time is in the future.' });
    expect(recoverSince(toLocalInput(NOW - RECOVER_MAX_AGE_MS - 120_000), NOW)).toMatchObject({ ok: false, message: expect.stringMatching(/30 days/) });
    expect(recoverSince('', NOW)).toMatchObject({ ok: false });
    expect(recoverSince('not a time', NOW)).toMatchObject({ ok: false });
  });
});

describe('following a resend', () => {
  it('follows until the attempts grow or 30 s pass', () => {
    expect(followingResend(1, 1, NOW, NOW + 1_000)).toBe(true);
    expect(followingResend(1, 2, NOW, NOW + 1_000)).toBe(false);
    expect(followingResend(1, 1, NOW, NOW + RESEND_FOLLOW_MS)).toBe(false);
    expect(attemptTotal([{ attempts: [1, 2] }, { attempts: [] }, { attempts: [3] }])).toBe(3);
  });
});

describe('addresses', () => {
  it('names the Deliveries tabs, an endpoint and an event, and round-trips their ids', () => {
    expect(matchRoute('/deliveries')).toEqual({ name: 'deliveries', tab: 'endpoints' });
    expect(matchRoute(deliveriesHref('endpoints'))).toEqual({ name: 'deliveries', tab: 'endpoints' });
    expect(matchRoute(`${deliveriesHref('failed')}/`)).toEqual({ name: 'deliveries', tab: 'failed' });
    expect(matchRoute(endpointHref(ENDPOINT_ID))).toEqual({ name: 'endpoint', id: ENDPOINT_ID });
    expect(matchRoute(eventHref(EVENT_ID))).toEqual({ name: 'event', eventId: EVENT_ID });
    expect(matchRoute('/deliveries/events/%E0%A4%A')).toEqual({ name: 'not_found' });
    expect(matchRoute('/deliveries/other')).toEqual({ name: 'not_found' });
  });

  it('builds the deliveries query in a fixed order with the limit clamped', () => {
    expect(deliveriesQuery({})).toBe('');
    expect(deliveriesQuery({ state: 'failed', endpointId: ENDPOINT_ID }, '41', 500)).toBe(`?state=failed&endpointId=${ENDPOINT_ID}&cursor=41&limit=100`);
  });
});

describe('the API client', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    setCsrfToken(null);
  });

  it('resends with the CSRF token, to one endpoint or to all, and recovers with the time', async () => {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        return new Response(JSON.stringify({ eventId: EVENT_ID, requeued: 1 }), { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    setCsrfToken('token-1');
    await api.resend(EVENT_ID, ENDPOINT_ID);
    await api.resend(EVENT_ID);
    await api.recover(ENDPOINT_ID, '2026-11-25T09:00:00.000Z');
    await api.setEndpointEnabled(ENDPOINT_ID, true);
    expect(calls.map((c) => [c.init.method, c.url, c.init.body, (c.init.headers as Record<string, string>)['x-csrf-token']])).toEqual([
      ['POST', `/api/v1/events/${EVENT_ID}/resend`, JSON.stringify({ endpointId: ENDPOINT_ID }), 'token-1'],
      ['POST', `/api/v1/events/${EVENT_ID}/resend`, null, 'token-1'],
      ['POST', `/api/v1/endpoints/${ENDPOINT_ID}/recover`, JSON.stringify({ since: '2026-11-25T09:00:00.000Z' }), 'token-1'],
      ['POST', `/api/v1/endpoints/${ENDPOINT_ID}/enable`, null, 'token-1'],
    ]);
  });
});

describe('the Deliveries pages', () => {
  it('has a Deliveries item in the navigation, active on its pages', () => {
    const html = render(
      createElement(Layout, { user: { email: 'ops@example.com', role: 'operator' }, route: { name: 'event', eventId: EVENT_ID }, children: null }),
    );
    expect(html).toMatch(/<a href="\/deliveries" data-testid="nav-deliveries" class="active" aria-current="page">Deliveries<\/a>/);
  });

  it('lists endpoints with their health, why they are disabled and since when they fail', () => {
    const html = render(createElement(DeliveriesPage, { tab: 'endpoints', role: 'viewer' }), (client) =>
      client.setQueryData(['endpoints'], {
        items: [endpoint, { ...endpoint, id: 'e2', url: 'https://b.example/hook', enabled: true, disabledReason: null, failingSince: null }],
      }),
    );
    expect(count(html, 'data-testid="endpoint-row"')).toBe(2);
    expect(html).toContain('data-testid="deliveries-tab-endpoints"');
    expect(html).toContain('https://customer.example/webhook/settle');
    expect(html).toContain('failing continuously');
    expect(html).toContain('>Enabled<');
    expect(html).toContain(`href="${endpointHref(ENDPOINT_ID)}"`);
  });

  it('says so when no endpoint is registered', () => {
    const html = render(createElement(DeliveriesPage, { tab: 'endpoints', role: 'viewer' }), (client) => client.setQueryData(['endpoints'], { items: [] }));
    expect(html).toContain('No endpoint is registered');
  });

  it('lists dead-lettered deliveries with the last answer and a link to the attempts; Resend for operators only', () => {
    const seed = (client: QueryClient) =>
      client.setQueryData(['deliveries', 'failed'], { pages: [{ items: [delivery], nextCursor: null }], pageParams: [null] });
    const operator = render(createElement(DeliveriesPage, { tab: 'failed', role: 'operator' }), seed);
    expect(count(operator, 'data-testid="dead-lettered-row"')).toBe(1);
    expect(operator).toContain('500 · HTTP_500');
    expect(operator).toContain(`href="${eventHref(EVENT_ID)}"`);
    expect(operator).toContain('data-testid="resend"');
    const viewer = render(createElement(DeliveriesPage, { tab: 'failed', role: 'viewer' }), seed);
    expect(viewer).not.toContain('data-testid="resend"');
  });

  it('shows an endpoint: details, recent deliveries, Recover for operators, Enable for admins', () => {
    const detail: EndpointDetail = { endpoint, recentDeliveries: [delivery] };
    const seed = (client: QueryClient) => client.setQueryData(['endpoint', ENDPOINT_ID], detail);
    const admin = render(createElement(EndpointPage, { id: ENDPOINT_ID, role: 'admin' }), seed);
    expect(admin).toContain('data-testid="endpoint-details"');
    expect(count(admin, 'data-testid="delivery-row"')).toBe(1);
    expect(admin).toContain('data-testid="recover-form"');
    expect(admin).toContain('data-testid="endpoint-enable"');
    expect(admin).not.toContain('data-testid="endpoint-disable"');
    const operator = render(createElement(EndpointPage, { id: ENDPOINT_ID, role: 'operator' }), seed);
    expect(operator).toContain('data-testid="recover-form"');
    expect(operator).not.toContain('data-testid="endpoint-enable"');
    const viewer = render(createElement(EndpointPage, { id: ENDPOINT_ID, role: 'viewer' }), seed);
    expect(viewer).not.toContain('data-testid="recover-form"');
    const enabled = render(createElement(EndpointPage, { id: ENDPOINT_ID, role: 'admin' }), (client) =>
      client.setQueryData(['endpoint', ENDPOINT_ID], { ...detail, endpoint: { ...endpoint, enabled: true, disabledReason: null } }),
    );
    expect(enabled).toContain('data-testid="endpoint-disable"');
  });

  it("shows an event's attempts: time, outcome, HTTP status, duration and the error excerpt; Resend for operators only", () => {
    const events: EventDeliveries = {
      eventId: EVENT_ID,
      deliveries: [
        {
          ...delivery,
          attemptCount: 2,
          attempts: [
            {
              attempt: 1,
              at: '2026-11-15T10:00:00.000Z',
              outcome: 'failed',
              httpStatus: null,
              durationMs: 10_000,
              error: 'TIMEOUT',
              responseExcerpt: null,
              nextAttemptAt: null,
            },
            {
              attempt: 2,
              at: '2026-11-15T10:00:05.000Z',
              outcome: 'failed',
              httpStatus: 500,
              durationMs: 85,
              error: 'HTTP_500',
              responseExcerpt: 'upstream database down',
              nextAttemptAt: null,
            },
          ],
        },
      ],
    };
    const seed = (client: QueryClient) => client.setQueryData(['event-deliveries', EVENT_ID], events);
    const operator = render(createElement(EventDeliveriesPage, { eventId: EVENT_ID, role: 'operator' }), seed);
    expect(count(operator, 'data-testid="attempt-row"')).toBe(2);
    expect(operator).toContain('TIMEOUT');
    expect(operator).toContain('10.0 s');
    expect(operator).toContain('85 ms');
    expect(operator).toContain('upstream database down');
    expect(operator).toContain('Dead-lettered');
    expect(operator).toContain('data-testid="resend"');
    expect(operator).toContain('data-testid="resend-delivery"');
    const viewer = render(createElement(EventDeliveriesPage, { eventId: EVENT_ID, role: 'viewer' }), seed);
    expect(viewer).not.toContain('data-testid="resend');
  });
});

describe("the transaction page's entitlement events", () => {
  const view: TransactionView = {
    transaction: {
      reference: 'ref_1',
      provider: 'paystack',
      state: 'SETTLED_CONSENSUS',
      entitlementStatus: 'UNLOCKED',
      amountMinor: 500_000,
      currency: 'NGN',
      userId: 'user-42',
      email: null,
      updatedAt: '2026-11-25T08:58:26.000Z',
      entitlement: 'pro-monthly',
      accessPeriod: 'P1M',
      checks: null,
      lastVerdict: null,
      lastTrigger: null,
      moneyState: 'none',
      returnedMinor: 0,
      resolution: null,
    },
    timeline: [],
    watch: null,
    entitlementEvents: [
      {
        eventId: EVENT_ID,
        event: 'subscription_started',
        expiresAt: null,
        deliveries: [
          {
            endpointId: ENDPOINT_ID,
            endpointUrl: endpoint.url,
            status: 'delivered',
            attempts: [{ at: '2026-11-25T08:58:27.000Z', outcome: 'delivered', httpStatus: 200, durationMs: 85 }],
          },
        ],
      },
    ],
  };
  const seed = (client: QueryClient) => client.setQueryData(['transaction', 'ref_1'], view);

  it('link each event to its attempts, and offer Resend to operators only', () => {
    const operator = render(createElement(TransactionPage, { reference: 'ref_1', role: 'operator' }), seed);
    expect(operator).toContain(`href="${eventHref(EVENT_ID)}"`);
    expect(operator).toContain('data-testid="resend"');
    const viewer = render(createElement(TransactionPage, { reference: 'ref_1', role: 'viewer' }), seed);
    expect(viewer).toContain(`href="${eventHref(EVENT_ID)}"`);
    expect(viewer).not.toContain('data-testid="resend"');
  });
});
