import type { Secret } from '@settle/config';
import { traceCarrierOf } from '@settle/platform';
import { z } from 'zod';
import { ConsoleError, type ConsoleErrorCode } from '../errors.js';
import {
  DELIVERY_STATES,
  type DeliveryAdmin,
  type DeliveryQuery,
  type DeliveryView,
  type DeliveryWithAttempts,
  type EndpointView,
} from './delivery-admin.port.js';

/** Longest wait for the dispatcher's answer, milliseconds. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Settings of {@link DispatcherDeliveryAdmin}. */
export interface DispatcherDeliveryAdminOptions {
  /** The dispatcher's base URL (`CONSOLE_DISPATCHER_URL`). */
  baseUrl: string;
  /** The admin API key the dispatcher accepts (`CONSOLE_DISPATCHER_ADMIN_API_KEY`), sent as `Authorization: Bearer`. */
  adminApiKey: Secret;
  /** Longest wait for each answer, milliseconds; default 10 000. */
  timeoutMs?: number;
}

// The dispatcher's answers (apps/dispatcher/src/http, snake_case). Only the fields listed are
// kept: whatever else an answer carries (a `secret` after a rotation) never goes further.
const isoOrNull = z.string().nullable();
const wireEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  event_kinds: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  disabled_at: isoOrNull,
  failing_since: isoOrNull,
  previous_secret_expires_at: isoOrNull,
  created_at: z.string(),
  updated_at: z.string(),
});
const wireAttempt = z.object({
  attempt: z.number(),
  started_at: z.string(),
  latency_ms: z.number(),
  status: z.number().nullable(),
  outcome: z.string(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
  next_attempt_at: isoOrNull,
});
const wireDelivery = z.object({
  delivery_id: z.number(),
  event_id: z.string(),
  event: z.string(),
  user_id: z.string(),
  endpoint_id: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number(),
  next_attempt_at: isoOrNull,
  delivered_at: isoOrNull,
  last_status: z.number().nullable(),
  last_error: z.string().nullable(),
  recorded_at: z.string(),
  attempt_log: z.array(wireAttempt).optional(),
});

/** An endpoint of the dispatcher's answer in the console's terms (camelCase, no secret). */
function endpointOf(e: z.infer<typeof wireEndpoint>): EndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventKinds: e.event_kinds,
    enabled: e.enabled,
    disabledReason: e.disabled_reason,
    disabledAt: e.disabled_at,
    failingSince: e.failing_since,
    previousSecretExpiresAt: e.previous_secret_expires_at,
    createdAt: e.created_at,
    updatedAt: e.updated_at,
  };
}

function deliveryOf(d: z.infer<typeof wireDelivery>): Omit<DeliveryView, 'endpointUrl'> {
  return {
    deliveryId: d.delivery_id,
    eventId: d.event_id,
    event: d.event,
    userId: d.user_id,
    endpointId: d.endpoint_id,
    state: d.state,
    attemptCount: d.attempts,
    nextAttemptAt: d.next_attempt_at,
    deliveredAt: d.delivered_at,
    lastStatus: d.last_status,
    lastError: d.last_error,
    recordedAt: d.recorded_at,
  };
}

function withAttemptsOf(d: z.infer<typeof wireDelivery>): Omit<DeliveryWithAttempts, 'endpointUrl'> {
  return {
    ...deliveryOf(d),
    attempts: (d.attempt_log ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.started_at,
      outcome: a.outcome,
      httpStatus: a.status,
      durationMs: a.latency_ms,
      error: a.error,
      responseExcerpt: a.response_excerpt,
      nextAttemptAt: a.next_attempt_at,
    })),
  };
}

/** The dispatcher's not-found codes and the console's (docs/delivery.md; apps/dispatcher/src/errors.ts). */
const NOT_FOUND_CODES: Record<string, ConsoleErrorCode> = {
  'ENDPOINT.NOT_FOUND': 'CONSOLE.ENDPOINT_NOT_FOUND',
  'EVENT.NOT_FOUND': 'CONSOLE.EVENT_NOT_FOUND',
};

/**
 * {@link DeliveryAdmin} over the dispatcher's admin API (docs/delivery.md, the admin API table),
 * with `Authorization: Bearer {CONSOLE_DISPATCHER_ADMIN_API_KEY}` and a time-out per call
 * (default 10 s), as the console reconciles through ingestion's (`IngestionReconciler`).
 *
 * Answers are mapped (docs/console.md, "Deliveries"): a 404 to `CONSOLE.ENDPOINT_NOT_FOUND` or
 * `CONSOLE.EVENT_NOT_FOUND` (by the problem's `code`, else by what was asked for); no answer, a
 * time-out, 429 or 5xx to `CONSOLE.DISPATCHER_UNAVAILABLE` (503, retry); any other refusal (a
 * wrong admin key, a request it finds invalid) or an answer of the wrong shape to
 * `CONSOLE.DISPATCHER_REJECTED` (500: a configuration or version error). The key never appears
 * in an error.
 */
export class DispatcherDeliveryAdmin implements DeliveryAdmin {
  constructor(private readonly options: DispatcherDeliveryAdminOptions) {}

  async endpoints(): Promise<EndpointView[]> {
    const body = await this.call('GET', 'v1/admin/endpoints', z.object({ endpoints: z.array(wireEndpoint) }), 'CONSOLE.ENDPOINT_NOT_FOUND');
    return body.endpoints.map(endpointOf);
  }

  async endpoint(id: string): Promise<EndpointView> {
    return endpointOf(await this.call('GET', `v1/admin/endpoints/${encodeURIComponent(id)}`, wireEndpoint, 'CONSOLE.ENDPOINT_NOT_FOUND'));
  }

  async deliveries(query: DeliveryQuery): Promise<Array<Omit<DeliveryView, 'endpointUrl'>>> {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.state) params.set('state', query.state);
    if (query.endpointId) params.set('endpoint_id', query.endpointId);
    if (query.before !== undefined) params.set('before', String(query.before));
    const body = await this.call(
      'GET',
      `v1/admin/deliveries?${params.toString()}`,
      z.object({ deliveries: z.array(wireDelivery) }),
      'CONSOLE.ENDPOINT_NOT_FOUND',
    );
    return body.deliveries.map(deliveryOf);
  }

  async eventDeliveries(eventId: string): Promise<Array<Omit<DeliveryWithAttempts, 'endpointUrl'>>> {
    const body = await this.call(
      'GET',
      `v1/admin/events/${encodeURIComponent(eventId)}/deliveries`,
      z.object({ deliveries: z.array(wireDelivery) }),
      'CONSOLE.EVENT_NOT_FOUND',
    );
    return body.deliveries.map(withAttemptsOf);
  }

  async resend(eventId: string, endpointId?: string): Promise<number> {
    const body = await this.call(
      'POST',
      `v1/admin/events/${encodeURIComponent(eventId)}/resend`,
      z.object({ requeued: z.number() }),
      'CONSOLE.EVENT_NOT_FOUND',
      endpointId === undefined ? {} : { endpoint_id: endpointId },
    );
    return body.requeued;
  }

  async recover(endpointId: string, since: Date): Promise<number> {
    const body = await this.call(
      'POST',
      `v1/admin/endpoints/${encodeURIComponent(endpointId)}/recover`,
      z.object({ requeued: z.number() }),
      'CONSOLE.ENDPOINT_NOT_FOUND',
      { since: since.toISOString() },
    );
    return body.requeued;
  }

  async setEnabled(endpointId: string, enabled: boolean): Promise<EndpointView> {
    const path = `v1/admin/endpoints/${encodeURIComponent(endpointId)}/${enabled ? 'enable' : 'disable'}`;
    return endpointOf(await this.call('POST', path, wireEndpoint, 'CONSOLE.ENDPOINT_NOT_FOUND'));
  }

  /**
   * One call of the admin API, its answer checked against `shape`.
   *
   * @param notFound - the console's code for a 404 whose problem names no known code.
   * @throws ConsoleError as the class says.
   */
  private async call<S extends z.ZodType>(method: 'GET' | 'POST', path: string, shape: S, notFound: ConsoleErrorCode, body?: unknown): Promise<z.infer<S>> {
    const base = this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.adminApiKey.reveal()}`, accept: 'application/json', ...traceCarrierOf() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path, base), {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch {
      throw new ConsoleError('CONSOLE.DISPATCHER_UNAVAILABLE', 'The dispatcher did not answer; retry later');
    }
    if (response.status === 404) {
      const problem = (await response.json().catch(() => null)) as { code?: unknown } | null;
      const code = typeof problem?.code === 'string' ? NOT_FOUND_CODES[problem.code] : undefined;
      const resolved = code ?? notFound;
      throw new ConsoleError(
        resolved,
        resolved === 'CONSOLE.EVENT_NOT_FOUND' ? 'The dispatcher has no such entitlement event' : 'The dispatcher has no such endpoint',
      );
    }
    if (response.status >= 500 || response.status === 429) {
      await response.body?.cancel();
      throw new ConsoleError('CONSOLE.DISPATCHER_UNAVAILABLE', `The dispatcher answered ${response.status}; retry later`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ConsoleError('CONSOLE.DISPATCHER_REJECTED', `The dispatcher refused the request with ${response.status}`);
    }
    const parsed = shape.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new ConsoleError('CONSOLE.DISPATCHER_REJECTED', 'The dispatcher answered in a shape the console does not read');
    return parsed.data;
  }
}
