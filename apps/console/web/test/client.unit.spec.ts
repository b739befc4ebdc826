import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, call, onUnauthenticated, setCsrfToken } from '../src/api/client';
import { signInErrorMessage } from '../src/pages/SignIn';

// The API client against a stubbed fetch: what it sends (cookie policy, CSRF header) and how it
// reads problem details.

type Call = { url: string; init: RequestInit };

function stubFetch(...answers: Response[]): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      const answer = answers.shift();
      if (!answer) throw new Error(`unexpected request ${init.method} ${url}`);
      return answer;
    }),
  );
  return calls;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const problem = (status: number, code: string, detail: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: 'about:blank', title: 'Problem', status, code, detail }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
const header = (call: Call | undefined, name: string) => (call?.init.headers as Record<string, string>)[name];

const session = { user: { email: 'ops@example.com', role: 'operator' }, csrfToken: 'token-1' };

describe('the console API client', () => {
  beforeEach(() => setCsrfToken('token-1'));
  afterEach(() => {
    vi.unstubAllGlobals();
    setCsrfToken(null);
  });

  it('sends the session cookie same-origin only, and no CSRF token on reads', async () => {
    const calls = stubFetch(json(200, { items: [], nextCursor: null }));
    await api.transactions({ q: 'ref_1', provider: '', state: '', entitlement: '' }, 'c1', 50);
    expect(calls[0]?.url).toBe('/api/v1/transactions?q=ref_1&cursor=c1&limit=50');
    expect(calls[0]?.init.credentials).toBe('same-origin');
    expect(header(calls[0], 'x-csrf-token')).toBeUndefined();
  });

  it('sends the CSRF token on every state-changing request and reads 202 and 204', async () => {
    const calls = stubFetch(json(202, { reference: 'ref_1', state: 'PENDING' }), new Response(null, { status: 204 }));
    await expect(api.reconcile('ref_1')).resolves.toEqual({ reference: 'ref_1', state: 'PENDING' });
    await expect(api.signOut()).resolves.toBeUndefined();
    expect(calls.map((call) => `${call.init.method} ${call.url} ${header(call, 'x-csrf-token')}`)).toEqual([
      'POST /api/v1/transactions/ref_1/reconcile token-1',
      'DELETE /api/v1/session token-1',
    ]);
  });

  it('encodes the reference in the path', async () => {
    const calls = stubFetch(json(200, {}));
    await api.transaction('ws_CO/1 #2');
    expect(calls[0]?.url).toBe('/api/v1/transactions/ws_CO%2F1%20%232');
  });

  it('reads the code, detail and Retry-After of problem details', async () => {
    stubFetch(problem(429, 'CONSOLE.LOGIN_LOCKED', 'Too many failed sign-ins', { 'retry-after': '840' }));
    const error = await api.signIn('ops@example.com', 'wrong').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: 'CONSOLE.LOGIN_LOCKED', message: 'Too many failed sign-ins', retryAfterSeconds: 840 });
    expect(signInErrorMessage(error)).toBe('Too many failed attempts for this email. Try again in 14 minutes.');
  });

  it('says a wrong email or password plainly', async () => {
    stubFetch(problem(401, 'CONSOLE.INVALID_CREDENTIALS', 'Invalid credentials'));
    const error = await api.signIn('ops@example.com', 'wrong').catch((caught: unknown) => caught);
    expect(signInErrorMessage(error)).toBe('The email or password is not correct.');
  });

  it('stands in for problem details when the body is not JSON, and for a network failure', async () => {
    stubFetch(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    await expect(api.overview()).rejects.toMatchObject({ status: 502, code: 'HTTP.502', message: 'Bad Gateway' });
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    await expect(api.overview()).rejects.toMatchObject({ status: 0, code: 'NETWORK.UNREACHABLE' });
  });

  it('tells the app when a request answers 401, so it shows the sign-in page', async () => {
    const told = vi.fn();
    const stop = onUnauthenticated(told);
    stubFetch(problem(401, 'CONSOLE.UNAUTHENTICATED', 'Sign in'));
    await expect(api.overview()).rejects.toMatchObject({ status: 401 });
    expect(told).toHaveBeenCalledTimes(1);
    stop();
  });

  it('does not when the sign-in itself is refused', async () => {
    const told = vi.fn();
    const stop = onUnauthenticated(told);
    stubFetch(problem(401, 'CONSOLE.INVALID_CREDENTIALS', 'Invalid credentials'));
    await expect(api.signIn('a@example.com', 'x')).rejects.toMatchObject({ status: 401 });
    expect(told).not.toHaveBeenCalled();
    stop();
  });

  it('reads the session token again and repeats once when the CSRF token is rejected', async () => {
    const calls = stubFetch(
      problem(403, 'CONSOLE.CSRF_REJECTED', 'CSRF token missing or wrong'),
      json(200, { ...session, csrfToken: 'token-2' }),
      json(202, { reference: 'ref_1', state: 'RECOVERING' }),
    );
    await expect(api.reconcile('ref_1')).resolves.toEqual({ reference: 'ref_1', state: 'RECOVERING' });
    expect(calls.map((call) => `${call.init.method} ${call.url} ${header(call, 'x-csrf-token') ?? '-'}`)).toEqual([
      'POST /api/v1/transactions/ref_1/reconcile token-1',
      'GET /api/v1/session -',
      'POST /api/v1/transactions/ref_1/reconcile token-2',
    ]);
  });

  it('calls an operation by its path in the document: parameters encoded, empty query values left out', async () => {
    const calls = stubFetch(json(200, { items: [], nextCursor: null }), json(200, {}), json(201, {}));
    await call('get', '/api/v1/deliveries', { query: { state: 'failed', endpointId: '', cursor: undefined, limit: 20 } });
    await call('get', '/api/v1/endpoints/{id}', { path: { id: 'a/b c' } });
    await call('post', '/api/v1/users', { body: { email: 'new@example.com', role: 'viewer' } });
    expect(calls.map((c) => [c.init.method, c.url, c.init.body])).toEqual([
      ['GET', '/api/v1/deliveries?state=failed&limit=20', null],
      ['GET', '/api/v1/endpoints/a%2Fb%20c', null],
      ['POST', '/api/v1/users', JSON.stringify({ email: 'new@example.com', role: 'viewer' })],
    ]);
  });

  it('reads the fields a validation problem names (its `errors`), ignoring entries that are not path and message', async () => {
    stubFetch(
      new Response(
        JSON.stringify({
          type: 'about:blank',
          title: 'Invalid request body',
          status: 400,
          code: 'REQUEST.VALIDATION_FAILED',
          detail: 'One or more fields are invalid',
          errors: [{ path: 'amount', message: 'amount must be an integer in minor units' }, { path: 3 }, 'customer'],
        }),
        { status: 400, headers: { 'content-type': 'application/problem+json' } },
      ),
      problem(409, 'CONSOLE.PROPOSAL_PENDING', 'A proposal is waiting already'),
    );
    const terms = { amount: 2.5, currency: 'NGN', user_id: 'u', customer: { email: 'a@example.com' }, entitlement: 'pro', access_period: 'P1M' };
    await expect(call('post', '/api/v1/unmatched-payments/{reference}/match-proposals', { path: { reference: 'ref_1' }, body: terms })).rejects.toMatchObject({
      status: 400,
      code: 'REQUEST.VALIDATION_FAILED',
      fieldErrors: [{ path: 'amount', message: 'amount must be an integer in minor units' }],
    });
    await expect(call('post', '/api/v1/unmatched-payments/{reference}/match-proposals', { path: { reference: 'ref_1' }, body: terms })).rejects.toMatchObject({
      code: 'CONSOLE.PROPOSAL_PENDING',
      fieldErrors: [],
    });
  });

  it('passes a role refusal on as is', async () => {
    stubFetch(problem(403, 'CONSOLE.FORBIDDEN', 'Viewers cannot reconcile'));
    await expect(api.reconcile('ref_1')).rejects.toMatchObject({ status: 403, code: 'CONSOLE.FORBIDDEN' });
  });
});

// Checked by the web app's tsc (test/ is in its program), never run: what the document does not
// state does not compile.
function documentChecks(): void {
  // @ts-expect-error: a path the document does not have
  void call('get', '/api/v1/no-such-route');
  // @ts-expect-error: the path's parameter is required
  void call('get', '/api/v1/endpoints/{id}');
  // @ts-expect-error: a role the document does not list
  void call('post', '/api/v1/users', { body: { email: 'a@example.com', role: 'owner' } });
  // @ts-expect-error: a method the path does not have
  void call('delete', '/api/v1/overview');
}
void documentChecks;
