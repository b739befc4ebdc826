/**
 * A stand-in for the dispatcher's admin API (a local HTTP server answering as apps/dispatcher
 * does: docs/delivery.md, the admin API table), recording every call: what the console's real
 * adapter (`DispatcherDeliveryAdmin`) talks to in its tests. Its state: two endpoints, an event
 * delivered to one and dead-lettered at the other.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A secret the stand-in adds to every endpoint it answers, which the console must never pass on. */
export const SECRET = 'whsec_dGhpcy1zZWNyZXQtbXVzdC1uZXZlci1yZWFjaC10aGUtYnJvd3Nlcg==';
/** The stand-in's enabled endpoint, its event delivered there. */
export const HEALTHY = '7d1f5c2a-1b3e-4c5d-8e9f-0a1b2c3d4e5f';
/** The stand-in's endpoint disabled for failing, its event dead-lettered there. */
export const FAILING = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
/** The one entitlement event the stand-in knows. */
export const EVENT = '2f1c7a3e-5b0d-5e2a-9c41-7d3b2a1f0e9c';
/** A UUID the stand-in knows nothing by. */
export const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** One call the stand-in received. */
export interface StandInCall {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

type Endpoint = { id: string; url: string; enabled: boolean; disabled_reason: string | null };

/** A running stand-in. */
export interface DispatcherStandIn {
  /** Its base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Every call received, oldest first. */
  calls: StandInCall[];
  /** Puts the two endpoints back as they were at the start. */
  reset(): void;
  close(): Promise<void>;
}

const initialEndpoints = (): Endpoint[] => [
  { id: HEALTHY, url: 'https://customer.example/webhook/settle', enabled: true, disabled_reason: null },
  { id: FAILING, url: 'https://legacy.example/hooks', enabled: false, disabled_reason: 'failing' },
];

/** Starts a stand-in on a free loopback port that accepts only `Bearer <adminKey>`. */
export async function startDispatcherStandIn(adminKey: string): Promise<DispatcherStandIn> {
  const calls: StandInCall[] = [];
  let endpoints = initialEndpoints();
  const server = createServer((req, res) => void answer(req, res, { adminKey, calls, endpoints: () => endpoints }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    reset: () => {
      endpoints = initialEndpoints();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function endpointBody(e: Endpoint) {
  return {
    id: e.id,
    url: e.url,
    description: null,
    event_kinds: ['subscription_started', 'subscription_renewed'],
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    disabled_at: e.enabled ? null : '2026-11-20T10:00:00.000Z',
    failing_since: e.enabled ? null : '2026-11-15T10:00:00.000Z',
    previous_secret_expires_at: null,
    created_at: '2026-11-01T10:00:00.000Z',
    updated_at: '2026-11-20T10:00:00.000Z',
    // What the dispatcher never answers here; the console must drop it if it ever did.
    secret: SECRET,
  };
}

function deliveryBody(id: number, endpointId: string, state: string) {
  return {
    delivery_id: id,
    event_id: EVENT,
    event: 'subscription_started',
    user_id: 'user-42',
    endpoint_id: endpointId,
    state,
    attempts: state === 'failed' ? 4 : 1,
    next_attempt_at: null,
    delivered_at: state === 'delivered' ? '2026-11-15T10:00:01.000Z' : null,
    last_status: state === 'failed' ? 500 : 200,
    last_error: state === 'failed' ? 'HTTP_500' : null,
    recorded_at: '2026-11-15T10:00:00.000Z',
  };
}

const DELIVERIES = [deliveryBody(2, FAILING, 'failed'), deliveryBody(1, HEALTHY, 'delivered')];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text ? JSON.parse(text) : null;
}

/** The dispatcher's admin API as apps/dispatcher answers it (docs/delivery.md, the admin API table). */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  state: { adminKey: string; calls: StandInCall[]; endpoints: () => Endpoint[] },
): Promise<void> {
  const { calls } = state;
  const endpoints = state.endpoints();
  const body = await readBody(req);
  calls.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
  if (req.headers.authorization !== `Bearer ${state.adminKey}`) return send(res, 401, { code: 'AUTH.INVALID_API_KEY' });
  const url = new URL(req.url ?? '/', 'http://dispatcher');
  const path = url.pathname;
  const endpoint = (id: string | undefined) => endpoints.find((e) => e.id === id);
  const notFound = (code: string) => send(res, 404, { code, title: 'Not found', status: 404 });
  let m: RegExpExecArray | null;
  if (req.method === 'GET' && path === '/v1/admin/endpoints') return send(res, 200, { endpoints: endpoints.map(endpointBody) });
  if ((m = /^\/v1\/admin\/endpoints\/([^/]+)(?:\/(enable|disable|recover))?$/.exec(path))) {
    const e = endpoint(m[1]);
    if (!e) return notFound('ENDPOINT.NOT_FOUND');
    if (req.method === 'GET' && !m[2]) return send(res, 200, endpointBody(e));
    if (m[2] === 'enable' || m[2] === 'disable') {
      e.enabled = m[2] === 'enable';
      e.disabled_reason = e.enabled ? null : 'admin';
      return send(res, 200, endpointBody(e));
    }
    if (m[2] === 'recover') return send(res, 200, { requeued: 3 });
  }
  if (req.method === 'GET' && path === '/v1/admin/deliveries') {
    const state = url.searchParams.get('state');
    const endpointId = url.searchParams.get('endpoint_id');
    const before = Number(url.searchParams.get('before') ?? Infinity);
    const limit = Number(url.searchParams.get('limit'));
    const rows = DELIVERIES.filter((d) => (!state || d.state === state) && (!endpointId || d.endpoint_id === endpointId) && d.delivery_id < before).slice(
      0,
      limit,
    );
    return send(res, 200, { deliveries: rows, next_before: rows.length === limit ? rows.at(-1)!.delivery_id : null });
  }
  if ((m = /^\/v1\/admin\/events\/([^/]+)\/(deliveries|resend)$/.exec(path))) {
    if (m[1] !== EVENT) return notFound('EVENT.NOT_FOUND');
    if (m[2] === 'deliveries') {
      const attempt = {
        attempt: 1,
        started_at: '2026-11-15T10:00:00.000Z',
        latency_ms: 42,
        status: 200,
        outcome: 'delivered',
        error: null,
        response_excerpt: '{"received":true}',
        next_attempt_at: null,
      };
      return send(res, 200, { event_id: EVENT, deliveries: [...DELIVERIES].reverse().map((d) => ({ ...d, attempt_log: [attempt] })) });
    }
    const endpointId = (body as { endpoint_id?: string } | null)?.endpoint_id;
    if (endpointId && !endpoint(endpointId)) return notFound('ENDPOINT.NOT_FOUND');
    return send(res, 200, { requeued: endpointId ? 1 : 2 });
  }
  return notFound('REQUEST.NOT_FOUND');
}
