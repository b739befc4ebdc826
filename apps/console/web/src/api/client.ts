import type { paths } from './generated/console-api';
import type {
  Answer,
  AuditFilters,
  AuditPage,
  DeliveryPage,
  DeliveryState,
  HeldInReviewItem,
  ManualReviewItem,
  Method as DocumentMethod,
  QueuePage,
  Role,
  StateMismatchItem,
  TransactionFilters,
  TransactionPage,
} from './types';
import { auditQuery, deliveriesQuery, pageQuery, transactionsQuery } from '../lib/query-string';

/** Base path of the console API. */
export const API_BASE = '/api/v1';

/**
 * An answer of the console API that is not a success: its RFC 9457 problem details, or what
 * stands for them when the body is not problem details (a proxy's 502, the network down).
 */
export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when no answer came (network error). */
    readonly status: number,
    /** The problem's stable code (`CONSOLE.INVALID_CREDENTIALS`), or `HTTP.<status>` / `NETWORK.UNREACHABLE`. */
    readonly code: string,
    /** The problem's `detail` or `title`, readable by a person. */
    message: string,
    /** Seconds from a `Retry-After` header, when there was one. */
    readonly retryAfterSeconds: number | null = null,
    /** The fields a 400 `REQUEST.VALIDATION_FAILED` names (the problem's `errors`: path and message); empty otherwise. */
    readonly fieldErrors: ReadonlyArray<FieldError> = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A field a request was refused for: its path in the body (`amount`, `customer.email`) and why. */
export interface FieldError {
  path: string;
  message: string;
}

/** Whether an error is the API saying the session is missing or expired (the sign-in page follows). */
export function isUnauthenticated(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code !== 'CONSOLE.INVALID_CREDENTIALS';
}

/** Listeners told when any request answers 401 (the session ended elsewhere or expired). */
const unauthenticatedListeners = new Set<() => void>();

/** Calls `listener` whenever a request other than the sign-in answers 401; returns the unsubscribe function. */
export function onUnauthenticated(listener: () => void): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

/** The methods the console API uses. */
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

let csrfToken: string | null = null;

/** Remembers the session's CSRF token, sent as `x-csrf-token` on every state-changing request. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

async function problemOf(response: Response): Promise<ApiError> {
  const retryAfter = Number(response.headers.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
  let code = `HTTP.${response.status}`;
  let message = response.statusText || `Request failed with status ${response.status}`;
  let fieldErrors: FieldError[] = [];
  try {
    const body = (await response.json()) as { code?: unknown; detail?: unknown; title?: unknown; errors?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.detail === 'string' && body.detail) message = body.detail;
    else if (typeof body.title === 'string' && body.title) message = body.title;
    if (Array.isArray(body.errors)) fieldErrors = body.errors.filter(isFieldError).map(({ path, message }) => ({ path, message }));
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  return new ApiError(response.status, code, message, retryAfterSeconds, fieldErrors);
}

function isFieldError(value: unknown): value is FieldError {
  const candidate = value as Partial<FieldError> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.path === 'string' && typeof candidate.message === 'string';
}

/**
 * Calls the console API with the session cookie (same origin only) and, for every method but
 * GET, the CSRF token (read again from the session and sent once more when the API rejects it).
 *
 * @param path - path under {@link API_BASE}, with its query string.
 * @returns the parsed JSON body, or `undefined` for 204.
 * @throws ApiError for any status from 400 up (with the problem's code) and for network failures (status 0).
 */
export async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  try {
    return await send<T>(method, path, body);
  } catch (error) {
    // A token older than the session (signed in again in another tab): read the session's token once and repeat.
    if (!(error instanceof ApiError) || error.code !== 'CONSOLE.CSRF_REJECTED' || method === 'GET') throw error;
    const session = await send<Answer<'/api/v1/session', 'get'>>('GET', '/session');
    setCsrfToken(session.csrfToken);
    return send<T>(method, path, body);
  }
}

async function send<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'NETWORK.UNREACHABLE', 'The console API cannot be reached. Check your connection and try again.');
  }
  if (!response.ok) {
    const error = await problemOf(response);
    if (isUnauthenticated(error) && path !== '/session') unauthenticatedListeners.forEach((listener) => listener());
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** An operation of the console API's document: path `P`'s method `M`. */
type Operation<P extends keyof paths, M extends DocumentMethod> = NonNullable<paths[P][M]>;
/** The document's paths that have an operation for `M`. */
export type PathOf<M extends DocumentMethod> = Extract<{ [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P }[keyof paths], keyof paths>;
type PathParams<O> = O extends { parameters: { path: infer X } } ? X : never;
type QueryParams<O> = O extends { parameters: { query?: infer X } } ? NonNullable<X> : never;
type BodyOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type JsonBody<O> = O extends { requestBody?: infer R } ? BodyOf<NonNullable<R>> : never;

/** What {@link call} sends for an operation: its path parameters (required when it has any), its query and its JSON body, typed by the document. */
export type CallInput<O> = ([PathParams<O>] extends [never] ? { path?: never } : { path: PathParams<O> }) & {
  query?: QueryParams<O>;
  body?: JsonBody<O>;
};
type CallArgs<O> = [PathParams<O>] extends [never] ? [input?: CallInput<O>] : [input: CallInput<O>];
/** What {@link call} resolves to: the operation's success body, `undefined` for an answer without one (204). */
export type CallAnswer<P extends keyof paths, M extends DocumentMethod> = [Answer<P, M>] extends [never] ? undefined : Answer<P, M>;

/**
 * Calls one operation of the console API by its path in the document (docs/api/console-openapi.json,
 * through the generated `paths`), as {@link request} does: the path, its parameters, query and
 * body are checked against the document at compile time and the answer is typed from it, so a
 * page calls the API with no function of its own here and no type named in types.ts:
 * `call('get', '/api/v1/transactions/{reference}', { path: { reference } })`.
 *
 * Path parameters are URL-encoded; query parameters that are `undefined`, `null` or `''` are left out.
 *
 * @throws ApiError as {@link request} does.
 */
export function call<M extends DocumentMethod, P extends PathOf<M>>(method: M, path: P, ...[input]: CallArgs<Operation<P, M>>): Promise<CallAnswer<P, M>> {
  const {
    path: params,
    query,
    body,
  } = (input ?? {}) as {
    path?: Record<string, string | number>;
    query?: Record<string, string | number | boolean | null | undefined>;
    body?: unknown;
  };
  // Every path of the document is under API_BASE (the API's document covers /api/v1 only).
  let url = path.slice(API_BASE.length);
  for (const [name, value] of Object.entries(params ?? {})) url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const queryString = search.toString();
  return request<CallAnswer<P, M>>(method.toUpperCase() as Method, queryString ? `${url}?${queryString}` : url, body);
}

/**
 * The console API's routes the pages call by name (over {@link call}, or {@link request} where a
 * page's filters make the query string). A new page calls {@link call} directly.
 */
export const api = {
  /** `POST /session`: signs in; throws ApiError 401 `CONSOLE.INVALID_CREDENTIALS` or 429 `CONSOLE.LOGIN_LOCKED`. */
  signIn: (email: string, password: string) => call('post', '/api/v1/session', { body: { email, password } }),
  /** `GET /session`: the current session; throws ApiError 401 `CONSOLE.UNAUTHENTICATED` when there is none. */
  session: () => call('get', '/api/v1/session'),
  /** `DELETE /session`: signs out. */
  signOut: () => call('delete', '/api/v1/session'),
  /** `GET /overview`: counts per state and entitlement status, dead letters, consumer lag, the ledger's hash-chain status. */
  overview: () => call('get', '/api/v1/overview'),
  /** `GET /transactions`: one page of the list, newest first. */
  transactions: (filters: TransactionFilters, cursor: string | null, limit?: number) =>
    request<TransactionPage>('GET', `/transactions${transactionsQuery(filters, cursor, limit)}`),
  /** `GET /transactions/:reference`: the transaction and its ledger timeline; throws ApiError 404 `CONSOLE.TRANSACTION_NOT_FOUND`. */
  transaction: (reference: string) => call('get', '/api/v1/transactions/{reference}', { path: { reference } }),
  /** `GET /queues/held-in-review`: one page of the transactions held in review, oldest first. */
  heldInReview: (cursor: string | null, limit?: number) => request<QueuePage<HeldInReviewItem>>('GET', `/queues/held-in-review${pageQuery(cursor, limit)}`),
  /** `GET /queues/manual-review`: one page of the transactions in manual review, oldest first. */
  manualReview: (cursor: string | null, limit?: number) => request<QueuePage<ManualReviewItem>>('GET', `/queues/manual-review${pageQuery(cursor, limit)}`),
  /** `GET /queues/state-mismatch`: State Mismatch, newest first, with the failed checks. */
  stateMismatch: (cursor: string | null, limit?: number) => request<QueuePage<StateMismatchItem>>('GET', `/queues/state-mismatch${pageQuery(cursor, limit)}`),
  /** `POST /transactions/:reference/reconcile`: asks for a verification now (operators and admins). */
  reconcile: (reference: string) => call('post', '/api/v1/transactions/{reference}/reconcile', { path: { reference } }),
  /** `GET /audit`: one page of admin actions, newest first (admins). */
  audit: (filters: Partial<AuditFilters>, cursor: string | null, limit?: number) => request<AuditPage>('GET', `/audit${auditQuery(filters, cursor, limit)}`),
  /** `GET /users`: every console user (admins). */
  users: () => call('get', '/api/v1/users'),
  /** `POST /users`: creates a user with a generated password, answered once (admins). */
  createUser: (email: string, role: Role) => call('post', '/api/v1/users', { body: { email, role } }),
  /** `PATCH /users/:email`: a new role, disabled or enabled (admins); throws ApiError 409 for the self-change and last-admin rules. */
  updateUser: (email: string, change: { role?: Role; disabled?: boolean }) => call('patch', '/api/v1/users/{email}', { path: { email }, body: change }),
  /** `POST /users/:email/password`: a new generated password, answered once; ends the user's sessions (admins). */
  resetPassword: (email: string) => call('post', '/api/v1/users/{email}/password', { path: { email } }),
  /** `GET /endpoints`: the customer endpoints (503 `CONSOLE.DELIVERY_NOT_CONFIGURED` without a dispatcher). */
  endpoints: () => call('get', '/api/v1/endpoints'),
  /** `GET /endpoints/:id`: one endpoint and its recent deliveries; throws ApiError 404 `CONSOLE.ENDPOINT_NOT_FOUND`. */
  endpoint: (id: string) => call('get', '/api/v1/endpoints/{id}', { path: { id } }),
  /** `GET /deliveries`: one page of deliveries, newest first (`state: 'failed'`: the dead-lettered ones). */
  deliveries: (filter: { state?: DeliveryState; endpointId?: string }, cursor: string | null, limit?: number) =>
    request<DeliveryPage>('GET', `/deliveries${deliveriesQuery(filter, cursor, limit)}`),
  /** `GET /events/:eventId/deliveries`: every delivery of an entitlement event with every attempt; throws ApiError 404 `CONSOLE.EVENT_NOT_FOUND`. */
  eventDeliveries: (eventId: string) => call('get', '/api/v1/events/{eventId}/deliveries', { path: { eventId } }),
  /** `POST /events/:eventId/resend`: to one endpoint, or to every endpoint that had it (operators and admins). */
  resend: (eventId: string, endpointId?: string) =>
    call('post', '/api/v1/events/{eventId}/resend', { path: { eventId }, body: endpointId ? { endpointId } : undefined }),
  /** `POST /endpoints/:id/recover`: dead-lettered deliveries since `since` (ISO 8601) again, and the events it never had (operators and admins). */
  recover: (endpointId: string, since: string) => call('post', '/api/v1/endpoints/{id}/recover', { path: { id: endpointId }, body: { since } }),
  /** `POST /endpoints/:id/enable` or `/disable` (admins). */
  setEndpointEnabled: (endpointId: string, enabled: boolean) =>
    enabled
      ? call('post', '/api/v1/endpoints/{id}/enable', { path: { id: endpointId } })
      : call('post', '/api/v1/endpoints/{id}/disable', { path: { id: endpointId } }),
};
