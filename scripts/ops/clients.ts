/**
 * Small HTTP clients for the running stack, shared by the demo, the end-to-end tests and the
 * benchmarks.
 */
import type { ProviderName } from '@settle/domain';

/** A checkout registration body (`POST /v1/checkouts`). */
export interface CheckoutBody {
  provider: string;
  reference: string;
  /** minor units */
  amount: number;
  currency: string;
  user_id: string;
  customer: { email?: string; phone?: string };
  entitlement: string;
  /** ISO 8601 duration the payment buys (`P1M`, `P30D`, `P1Y`). */
  access_period: string;
}

/** `GET /v1/checkouts/{reference}`. */
export interface CheckoutStatus {
  reference: string;
  provider: string;
  state: string;
  entitlement_status: string;
  amount: number;
  currency: string;
  entitlement: string;
  access_period: string | null;
  checks?: Array<{ check: string; passed: boolean; code: string | null; expected: string; observed: string }>;
  /** What happened to the money after settlement (`none`, `refunded`, `reversed`, `charged_back`, ...). */
  money_state: string;
  /** Money returned to the payer so far, minor units. */
  returned: number;
  /** A State Mismatch's resolution: `accepted_as_paid`, `refund_due`, `refunded`, or `null`. */
  resolution: string | null;
  updated_at: string;
}

/** An HTTP answer: status and parsed JSON body. */
export interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

async function call<T>(url: string, init: RequestInit): Promise<Answer<T>> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
}

/** Client of the ingestion app's checkout API. */
/** A reconciliation run as ingestion's admin API shows it (docs/reconciliation.md). */
export interface ReconciliationRunView {
  run_id: string;
  status: 'started' | 'progressed' | 'completed' | 'failed';
  pages: number;
  listed: number;
  out_of_scope: number;
  too_recent: number;
  classes: Record<string, number>;
  exceptions_raised: number;
  error: string | null;
}

export class IngestionClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  private headers(json = false): Record<string, string> {
    return { authorization: `Bearer ${this.apiKey}`, ...(json ? { 'content-type': 'application/json' } : {}) };
  }

  register(body: CheckoutBody): Promise<Answer<{ reference: string; state: string }>> {
    return call(`${this.baseUrl}/v1/checkouts`, { method: 'POST', headers: this.headers(true), body: JSON.stringify(body) });
  }

  complete(reference: string): Promise<Answer<{ reference: string; state: string }>> {
    return call(`${this.baseUrl}/v1/checkouts/${encodeURIComponent(reference)}/complete`, { method: 'POST', headers: this.headers() });
  }

  status(reference: string): Promise<Answer<CheckoutStatus>> {
    return call(`${this.baseUrl}/v1/checkouts/${encodeURIComponent(reference)}`, { method: 'GET', headers: this.headers() });
  }

  /** `POST /v1/admin/reconciliation-runs` (admin key): starts a reconciliation run over a window. */
  startReconciliation(body: {
    provider: string;
    since: string;
    until?: string;
    dry_run?: boolean;
    requested_by?: string;
  }): Promise<Answer<{ run_id: string }>> {
    return call(`${this.baseUrl}/v1/admin/reconciliation-runs`, { method: 'POST', headers: this.headers(true), body: JSON.stringify(body) });
  }

  /** `GET /v1/admin/reconciliation-runs/{run_id}` (admin key): where the run stands. */
  reconciliationRun(runId: string): Promise<Answer<ReconciliationRunView>> {
    return call(`${this.baseUrl}/v1/admin/reconciliation-runs/${encodeURIComponent(runId)}`, { method: 'GET', headers: this.headers() });
  }

  /** `GET /v1/admin/reconciliation-exceptions` (admin key): one page of exceptions, filtered. */
  reconciliationExceptions(
    query: Record<string, string>,
  ): Promise<
    Answer<{ exceptions: Array<{ exception_id: string; reference: string; class: string; status: string; run_id: string | null }>; next_cursor: string | null }>
  > {
    return call(`${this.baseUrl}/v1/admin/reconciliation-exceptions?${new URLSearchParams(query).toString()}`, { method: 'GET', headers: this.headers() });
  }

  /** `GET /v1/users/{user_id}/entitlements`: the user's entitlements as the ledger granted them. */
  entitlements(
    userId: string,
  ): Promise<
    Answer<{ user_id: string; entitlements: Array<{ entitlement: string; expires_at: string; grants: number; last_event: string; last_event_id: string }> }>
  > {
    return call(`${this.baseUrl}/v1/users/${encodeURIComponent(userId)}/entitlements`, { method: 'GET', headers: this.headers() });
  }
}

/** An endpoint as the dispatcher's admin API shows it. */
export interface EndpointBody {
  id: string;
  url: string;
  event_kinds: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
}

/** A delivery with its attempts (`GET /v1/admin/events/{event_id}/deliveries`). */
export interface DeliveryBody {
  delivery_id: number;
  event_id: string;
  endpoint_id: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  attempt_log?: Array<{ attempt: number; status: number | null; outcome: string; error: string | null; latency_ms: number }>;
}

/** Client of the dispatcher's admin API (admin key). */
/**
 * One signed-in user of the operations console's API (docs/console.md, "API"): the session cookie
 * and CSRF token of `POST /api/v1/session`, sent with every command.
 */
export class ConsoleClient {
  private constructor(
    readonly baseUrl: string,
    private readonly cookie: string,
    private readonly csrfToken: string,
  ) {}

  /**
   * Signs in.
   *
   * @throws Error when the console refuses the credentials.
   */
  static async signIn(baseUrl: string, email: string, password: string): Promise<ConsoleClient> {
    const answer = await call<{ csrfToken: string }>(`${baseUrl}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const cookie = answer.headers.get('set-cookie')?.split(';')[0];
    if (answer.status !== 200 || !cookie) throw new Error(`the console refused ${email}'s sign-in (${answer.status})`);
    return new ConsoleClient(baseUrl, cookie, answer.body.csrfToken);
  }

  private post<T>(path: string, body?: unknown): Promise<Answer<T>> {
    return call(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { cookie: this.cookie, 'x-csrf-token': this.csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** Proposes accepting a State Mismatch as paid (docs/approvals.md); 201 with the proposal. */
  proposeAcceptAsPaid(reference: string, note: string): Promise<Answer<{ id: string; status: string }>> {
    return this.post(`/api/v1/transactions/${encodeURIComponent(reference)}/accept-as-paid-proposals`, { note });
  }

  /** Approves a proposal (an admin who did not propose it); 200 with the proposal and what the action did. */
  approve(proposalId: string): Promise<Answer<{ proposal: { status: string }; result: Record<string, unknown> }>> {
    return this.post(`/api/v1/proposals/${encodeURIComponent(proposalId)}/approve`);
  }
}

export class DispatcherClient {
  constructor(
    readonly baseUrl: string,
    readonly adminKey: string,
  ) {}

  private init(method: string, body?: unknown): RequestInit {
    return {
      method,
      headers: { authorization: `Bearer ${this.adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
  }

  createEndpoint(body: { url: string; event_kinds?: string[]; description?: string }): Promise<Answer<EndpointBody & { secret: string }>> {
    return call(`${this.baseUrl}/v1/admin/endpoints`, this.init('POST', body));
  }

  endpoints(): Promise<Answer<{ endpoints: EndpointBody[] }>> {
    return call(`${this.baseUrl}/v1/admin/endpoints`, this.init('GET'));
  }

  endpoint(id: string): Promise<Answer<EndpointBody>> {
    return call(`${this.baseUrl}/v1/admin/endpoints/${encodeURIComponent(id)}`, this.init('GET'));
  }

  rotateSecret(id: string, previousValidForMs?: number): Promise<Answer<EndpointBody & { secret: string }>> {
    return call(
      `${this.baseUrl}/v1/admin/endpoints/${encodeURIComponent(id)}/rotate-secret`,
      this.init('POST', previousValidForMs === undefined ? {} : { previous_secret_valid_for_ms: previousValidForMs }),
    );
  }

  deleteEndpoint(id: string): Promise<Answer<null>> {
    return call(`${this.baseUrl}/v1/admin/endpoints/${encodeURIComponent(id)}`, this.init('DELETE'));
  }

  setEnabled(id: string, enabled: boolean): Promise<Answer<EndpointBody>> {
    return call(`${this.baseUrl}/v1/admin/endpoints/${encodeURIComponent(id)}/${enabled ? 'enable' : 'disable'}`, this.init('POST'));
  }

  recover(id: string, since: Date): Promise<Answer<{ requeued: number }>> {
    return call(`${this.baseUrl}/v1/admin/endpoints/${encodeURIComponent(id)}/recover`, this.init('POST', { since: since.toISOString() }));
  }

  deliveriesOf(eventId: string): Promise<Answer<{ event_id: string; deliveries: DeliveryBody[] }>> {
    return call(`${this.baseUrl}/v1/admin/events/${encodeURIComponent(eventId)}/deliveries`, this.init('GET'));
  }

  resend(eventId: string, endpointId?: string): Promise<Answer<{ requeued: number }>> {
    return call(`${this.baseUrl}/v1/admin/events/${encodeURIComponent(eventId)}/resend`, this.init('POST', endpointId ? { endpoint_id: endpointId } : {}));
  }

  deliveries(
    query: { state?: string; endpoint_id?: string; limit?: number } = {},
  ): Promise<Answer<{ deliveries: DeliveryBody[]; next_before: number | null }>> {
    const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    return call(`${this.baseUrl}/v1/admin/deliveries?${q.toString()}`, this.init('GET'));
  }
}

/** Per-transaction knobs of the provider sandbox. */
export interface SandboxBehaviour {
  outcome?: 'success' | 'declined' | 'clearing_then_success' | 'lower_amount' | 'other_currency' | 'other_customer' | 'other_reference';
  clearing_checks?: number;
  failures?: { mode: '502' | '504' | 'timeout'; times: number };
  webhook?: 'deliver' | 'drop' | 'delay' | 'duplicate' | 'spoof';
  webhook_delay_ms?: number;
  /** How a decline reads at the provider (Stripe decline code, M-Pesa ResultCode 1 or 2001). */
  decline?: 'insufficient_funds' | 'wrong_pin';
}

/** A sandbox transaction as its control API shows it. */
export interface SandboxTransaction {
  reference: string;
  verifyCalls: number;
  failuresServed: number;
  webhooksSent: number;
  paid: boolean;
}

/** Providers the sandbox simulates: every name of the domain's `PROVIDERS`. */
export type SandboxProvider = ProviderName;

/** Client of the provider sandbox's control API (`/_sandbox/<provider>/transactions`). */
export class SandboxClient {
  constructor(readonly baseUrl: string) {}

  private path(provider: SandboxProvider, reference?: string): string {
    return `${this.baseUrl}/_sandbox/${provider}/transactions${reference === undefined ? '' : `/${encodeURIComponent(reference)}`}`;
  }

  /**
   * Creates a transaction. `reference` may be left out where the provider assigns it (Stripe's
   * `pi_` id, M-Pesa's CheckoutRequestID); the answer carries it. Stripe's `receipt_email: false`
   * leaves the intent without `receipt_email`: only its charge's billing details carry the email.
   */
  create(
    tx: { reference?: string; amount: number; currency: string; email?: string; phone?: string; behaviour?: SandboxBehaviour; receipt_email?: boolean },
    provider: SandboxProvider = 'paystack',
  ) {
    return call<SandboxTransaction>(this.path(provider), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(tx),
    });
  }

  pay(reference: string, provider: SandboxProvider = 'paystack') {
    return call<SandboxTransaction>(`${this.path(provider, reference)}/pay`, { method: 'POST' });
  }

  inspect(reference: string, provider: SandboxProvider = 'paystack') {
    return call<SandboxTransaction>(this.path(provider, reference), { method: 'GET' });
  }

  /** Takes a settled payment back at the provider, after settlement (Paystack's list then shows it `reversed`). */
  reverse(reference: string, provider: SandboxProvider = 'paystack') {
    return call<SandboxTransaction>(`${this.path(provider, reference)}/reverse`, { method: 'POST' });
  }

  /**
   * Refunds a paid payment at the provider, in full (no `amount`) or in part (minor units); its
   * notification is sent, dropped or spoofed as `webhook` says (default sent).
   */
  refund(
    reference: string,
    refund: { amount?: number; status?: 'pending' | 'succeeded'; webhook?: MovementWebhook } = {},
    provider: SandboxProvider = 'paystack',
  ) {
    return call<SandboxRefund>(`${this.path(provider, reference)}/refunds`, json(refund));
  }

  /** Moves a refund on at the provider: `succeeded`, or `failed` (also after it succeeded). */
  updateRefund(id: string, update: { status: 'succeeded' | 'failed'; webhook?: MovementWebhook }, provider: SandboxProvider = 'paystack') {
    return call<SandboxRefund>(`${this.baseUrl}/_sandbox/${provider}/refunds/${encodeURIComponent(id)}`, json(update));
  }

  /** Opens a dispute on a paid payment at the provider (`amount` in minor units, default the payment's). */
  dispute(reference: string, dispute: { amount?: number; reason?: string; webhook?: MovementWebhook } = {}, provider: SandboxProvider = 'paystack') {
    return call<SandboxDispute>(`${this.path(provider, reference)}/disputes`, json(dispute));
  }

  /** Decides a dispute at the provider: `won` (the merchant keeps the money) or `lost` (a chargeback). */
  resolveDispute(id: string, resolution: { outcome: 'won' | 'lost'; webhook?: MovementWebhook }, provider: SandboxProvider = 'paystack') {
    return call<SandboxDispute>(`${this.baseUrl}/_sandbox/${provider}/disputes/${encodeURIComponent(id)}/resolve`, json(resolution));
  }
}

/** What the sandbox does with the notification of a refund or dispute: send it, drop it, or send it signed with a wrong secret. */
export type MovementWebhook = 'deliver' | 'drop' | 'spoof';

/** A refund as the sandbox's control API answers it (amounts in minor units, times ISO 8601). */
export interface SandboxRefund {
  id: string;
  amount: number;
  status: 'pending' | 'succeeded' | 'failed';
  createdAt: string;
  updatedAt: string;
}

/** A dispute as the sandbox's control API answers it. */
export interface SandboxDispute {
  id: string;
  amount: number;
  status: 'open' | 'won' | 'lost';
  reason: string;
  createdAt: string;
  resolvedAt: string | null;
}

/** A JSON POST. */
function json(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** {@link waitUntil}'s deadline passed: what it waited for never came (a caller may add what it knows of why). */
export class WaitTimedOutError extends Error {
  override name = 'WaitTimedOutError';
}

/**
 * Polls until `check` returns a value (not undefined) or the deadline passes.
 *
 * @param timeoutMs - deadline, milliseconds.
 * @throws WaitTimedOutError naming `what` when the deadline passes.
 */
export async function waitUntil<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new WaitTimedOutError(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
