import { Ajv, type ValidateFunction } from 'ajv';
import type { Secret } from '@settle/config';
import { traceCarrierOf } from '@settle/platform';
import { ConsoleError, type ConsoleErrorCode } from '../errors.js';
import type { DeliveryAdmin, DeliveryQuery, DeliveryView, DeliveryWithAttempts, EndpointView } from './delivery-admin.port.js';
import type { paths } from './generated/dispatcher-admin-api.js';
import { paths as documentPaths } from './generated/dispatcher-admin-api.schemas.js';

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

// The dispatcher's answers (snake_case) are read through the types and schemas generated from its
// committed OpenAPI document (docs/api/dispatcher-openapi.json, `npm run openapi`): a renamed
// field fails to compile here, and an answer that does not match the document is refused at run
// time. Only the fields the console shows are copied: whatever else an answer carries (a `secret`
// after a rotation) never goes further.
type Operations = {
  [P in keyof paths]: { [M in 'get' | 'post' as NonNullable<paths[P][M]> extends never ? never : M]: NonNullable<paths[P][M]> };
};
/** The JSON body of an admin API operation's 200 answer. */
type Answer<P extends keyof paths, M extends 'get' | 'post'> = M extends keyof Operations[P]
  ? Operations[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } }
    ? B
    : never
  : never;
type WireEndpoint = Answer<'/v1/admin/endpoints/{id}', 'get'>;
type WireDelivery = Answer<'/v1/admin/events/{eventId}/deliveries', 'get'>['deliveries'][number];
type WireListedDelivery = Answer<'/v1/admin/deliveries', 'get'>['deliveries'][number];

// Fields the document does not state are removed, not refused: a newer dispatcher may add one, and
// a secret shown once after a rotation is dropped here already. Formats are checked by the
// document's own patterns (uuid, date-time).
const ajv = new Ajv({ strict: false, validateFormats: false, removeAdditional: true });
const validators = new Map<string, ValidateFunction>();

/** The validator of an operation's 200 answer, compiled once from the document's schema. */
function answerValidator(path: keyof paths, method: 'get' | 'post'): ValidateFunction {
  const key = `${method} ${path}`;
  let validate = validators.get(key);
  if (!validate) {
    type DocumentOperation = { responses: Record<string, { content: Record<string, { schema: object }> }> };
    const operation = (documentPaths[path] as Record<string, DocumentOperation>)[method]!;
    validate = ajv.compile(operation.responses['200']!.content['application/json']!.schema);
    validators.set(key, validate);
  }
  return validate;
}

/** An endpoint of the dispatcher's answer in the console's terms (camelCase, no secret). */
function endpointOf(e: WireEndpoint): EndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description ?? null,
    eventKinds: e.event_kinds,
    enabled: e.enabled,
    disabledReason: e.disabled_reason ?? null,
    disabledAt: e.disabled_at ?? null,
    failingSince: e.failing_since ?? null,
    previousSecretExpiresAt: e.previous_secret_expires_at ?? null,
    createdAt: e.created_at,
    updatedAt: e.updated_at,
  };
}

function deliveryOf(d: WireListedDelivery | WireDelivery): Omit<DeliveryView, 'endpointUrl'> {
  return {
    deliveryId: d.delivery_id,
    eventId: d.event_id,
    event: d.event,
    userId: d.user_id,
    endpointId: d.endpoint_id,
    state: d.state,
    attemptCount: d.attempts,
    nextAttemptAt: d.next_attempt_at ?? null,
    deliveredAt: d.delivered_at ?? null,
    lastStatus: d.last_status ?? null,
    lastError: d.last_error ?? null,
    recordedAt: d.recorded_at,
  };
}

function withAttemptsOf(d: WireDelivery): Omit<DeliveryWithAttempts, 'endpointUrl'> {
  return {
    ...deliveryOf(d),
    attempts: (d.attempt_log ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.started_at,
      outcome: a.outcome,
      httpStatus: a.status ?? null,
      durationMs: a.latency_ms,
      error: a.error ?? null,
      responseExcerpt: a.response_excerpt ?? null,
      nextAttemptAt: a.next_attempt_at ?? null,
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
    const body = await this.call<Answer<'/v1/admin/endpoints', 'get'>>('get', '/v1/admin/endpoints', 'v1/admin/endpoints', 'CONSOLE.ENDPOINT_NOT_FOUND');
    return body.endpoints.map(endpointOf);
  }

  async endpoint(id: string): Promise<EndpointView> {
    return endpointOf(
      await this.call<WireEndpoint>('get', '/v1/admin/endpoints/{id}', `v1/admin/endpoints/${encodeURIComponent(id)}`, 'CONSOLE.ENDPOINT_NOT_FOUND'),
    );
  }

  async deliveries(query: DeliveryQuery): Promise<Array<Omit<DeliveryView, 'endpointUrl'>>> {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.state) params.set('state', query.state);
    if (query.endpointId) params.set('endpoint_id', query.endpointId);
    if (query.before !== undefined) params.set('before', String(query.before));
    const body = await this.call<Answer<'/v1/admin/deliveries', 'get'>>(
      'get',
      '/v1/admin/deliveries',
      `v1/admin/deliveries?${params.toString()}`,
      'CONSOLE.ENDPOINT_NOT_FOUND',
    );
    return body.deliveries.map(deliveryOf);
  }

  async eventDeliveries(eventId: string): Promise<Array<Omit<DeliveryWithAttempts, 'endpointUrl'>>> {
    const body = await this.call<Answer<'/v1/admin/events/{eventId}/deliveries', 'get'>>(
      'get',
      '/v1/admin/events/{eventId}/deliveries',
      `v1/admin/events/${encodeURIComponent(eventId)}/deliveries`,
      'CONSOLE.EVENT_NOT_FOUND',
    );
    return body.deliveries.map(withAttemptsOf);
  }

  async resend(eventId: string, endpointId?: string): Promise<number> {
    const body = await this.call<Answer<'/v1/admin/events/{eventId}/resend', 'post'>>(
      'post',
      '/v1/admin/events/{eventId}/resend',
      `v1/admin/events/${encodeURIComponent(eventId)}/resend`,
      'CONSOLE.EVENT_NOT_FOUND',
      endpointId === undefined ? {} : { endpoint_id: endpointId },
    );
    return body.requeued;
  }

  async recover(endpointId: string, since: Date): Promise<number> {
    const body = await this.call<Answer<'/v1/admin/endpoints/{id}/recover', 'post'>>(
      'post',
      '/v1/admin/endpoints/{id}/recover',
      `v1/admin/endpoints/${encodeURIComponent(endpointId)}/recover`,
      'CONSOLE.ENDPOINT_NOT_FOUND',
      { since: since.toISOString() },
    );
    return body.requeued;
  }

  async setEnabled(endpointId: string, enabled: boolean): Promise<EndpointView> {
    const path = `v1/admin/endpoints/${encodeURIComponent(endpointId)}/${enabled ? 'enable' : 'disable'}`;
    const operation = enabled ? '/v1/admin/endpoints/{id}/enable' : '/v1/admin/endpoints/{id}/disable';
    return endpointOf(await this.call<Answer<typeof operation, 'post'>>('post', operation, path, 'CONSOLE.ENDPOINT_NOT_FOUND'));
  }

  /**
   * One call of the admin API, its answer checked against the document's schema of `operation`.
   *
   * @param operation - the document's path of the operation (`/v1/admin/endpoints/{id}`).
   * @param path - the path called, relative to the base URL, with its parameters and query.
   * @param notFound - the console's code for a 404 whose problem names no known code.
   * @throws ConsoleError as the class says.
   */
  private async call<T>(method: 'get' | 'post', operation: keyof paths, path: string, notFound: ConsoleErrorCode, body?: unknown): Promise<T> {
    const base = this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.adminApiKey.reveal()}`, accept: 'application/json', ...traceCarrierOf() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path, base), {
        method: method.toUpperCase(),
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
    const answer: unknown = await response.json().catch(() => undefined);
    if (!answerValidator(operation, method)(answer)) {
      throw new ConsoleError('CONSOLE.DISPATCHER_REJECTED', 'The dispatcher answered in a shape the console does not read');
    }
    return answer as T;
  }
}
