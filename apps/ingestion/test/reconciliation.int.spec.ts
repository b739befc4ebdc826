/**
 * Reconciliation on ingestion's admin API (docs/reconciliation.md): a run requested is durable in
 * the outbox before the answer, runs and exceptions are read from the ledger's read models by
 * keyset pages (and exported as CSV), an exception is resolved through a request, and bad input is
 * a problem with a stable code. The read-model rows are written by the read model's own writer,
 * as the projector does.
 */
import { text } from 'node:stream/consumers';
import { reconciliationExceptionsCsv, upsertReconciliation, type ReconciliationExceptionRow, type ReconciliationRunRow } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestionTestApp, type IngestionTestApp } from './ingestion-test-app.js';

let t: IngestionTestApp;

const RUN_ID = 'rcr_00000000-0000-4000-8000-000000000001';
const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 12, minute)).toISOString();

const run: ReconciliationRunRow = {
  status: 'completed',
  ledgerRevision: 2,
  data: {
    run_id: RUN_ID,
    provider: 'paystack',
    kind: 'on_demand',
    window_from: at(0),
    window_until: at(60),
    dry_run: false,
    started_by: 'ops@example.com',
    pages: 3,
    total_pages: 3,
    listed: 120,
    out_of_scope: 4,
    too_recent: 1,
    classes: { matches: 113, stuck: 1, settled_not_successful: 1 },
    exceptions_raised: 2,
    exceptions_resolved: 0,
    started_at: at(61),
    finished_at: at(62),
    error: null,
  },
};

const raised = (
  id: string,
  reference: string,
  cls: 'stuck' | 'settled_not_successful',
  minute: number,
  runId = RUN_ID,
  raisedAt = at(minute),
): ReconciliationExceptionRow => ({
  kind: 'raised',
  ledgerRevision: 0,
  data: {
    exception_id: id,
    reference,
    provider: 'paystack',
    class: cls,
    evidence: [
      { field: 'status', provider: cls === 'stuck' ? 'succeeded (success)' : 'reversed (reversed)', settle: cls === 'stuck' ? 'PENDING' : 'SETTLED_CONSENSUS' },
    ],
    run_id: runId,
    provider_transaction_id: `4099${minute}`,
    provider_status: cls === 'stuck' ? 'success' : 'reversed',
    amount_minor: 250_000,
    currency: 'NGN',
    raised_at: raisedAt,
  },
});

const STUCK = 'rex_00000000-0000-4000-8000-00000000000a';
const REVERSED = 'rex_00000000-0000-4000-8000-00000000000b';

beforeAll(async () => {
  t = await startIngestionTestApp();
  await upsertReconciliation(t.pool, [run], [raised(STUCK, 'ref_r_stuck', 'stuck', 1), raised(REVERSED, 'ref_r_reversed', 'settled_not_successful', 2)]);
});

afterAll(async () => {
  await t?.close();
});

const post = (url: string, payload: unknown, authorization = t.adminAuthorization) =>
  t.app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, headers: { authorization } });
const get = (url: string, authorization = t.adminAuthorization) => t.app.inject({ method: 'GET', url, headers: { authorization } });

async function outboxOf(type: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await t.pool.query<{ payload: Record<string, unknown> }>('SELECT payload FROM ingestion.outbox WHERE event_type = $1 ORDER BY id', [type]);
  return rows.map((r) => r.payload);
}

describe('POST /v1/admin/reconciliation-runs', () => {
  it('records the request in the outbox before answering 202 with the run id and the window', async () => {
    const answer = await post('/v1/admin/reconciliation-runs', {
      provider: 'stripe',
      since: '2026-11-27T00:00:00Z',
      until: '2026-11-28T00:00:00Z',
      dry_run: true,
      requested_by: 'cli',
    });
    expect(answer.statusCode).toBe(202);
    const body = answer.json<{ run_id: string; window: { since: string; until: string } }>();
    expect(body.run_id).toMatch(/^rcr_[0-9a-f-]{36}$/);
    expect(body.window).toEqual({ since: '2026-11-27T00:00:00.000Z', until: '2026-11-28T00:00:00.000Z' });
    const requested = (await outboxOf('ReconciliationRunRequested')).find((p) => p.reference === body.run_id);
    expect(requested).toMatchObject({
      provider: 'stripe',
      dry_run: true,
      requested_by: 'cli',
      window_from: Date.UTC(2026, 10, 27),
      window_until: Date.UTC(2026, 10, 28),
    });
  });

  it('refuses M-Pesa (no list), an empty or too long window, and a bad body, each with its code', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ provider: 'mpesa', since: '2026-11-27T00:00:00Z' }, 422, 'RECONCILIATION.PROVIDER_CANNOT_LIST'],
      [{ provider: 'paystack', since: '2026-11-28T00:00:00Z', until: '2026-11-27T00:00:00Z' }, 422, 'RECONCILIATION.INVALID_WINDOW'],
      [{ provider: 'paystack', since: '2026-09-01T00:00:00Z', until: '2026-11-27T00:00:00Z' }, 422, 'RECONCILIATION.INVALID_WINDOW'],
      [{ provider: 'paystack', since: 'yesterday' }, 400, 'REQUEST.VALIDATION_FAILED'],
      [{ provider: 'paypal', since: '2026-11-27T00:00:00Z' }, 400, 'REQUEST.VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await post('/v1/admin/reconciliation-runs', body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(status);
      expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(answer.json()).toMatchObject({ code });
    }
    expect((await post('/v1/admin/reconciliation-runs', { provider: 'paystack', since: '2026-11-27T00:00:00Z' }, t.apiAuthorization)).statusCode).toBe(401);
  });
});

describe('GET /v1/admin/reconciliation-runs and reconciliation-exceptions', () => {
  it('shows a run with its counts per class, and 404 for one not recorded yet', async () => {
    const answer = await get(`/v1/admin/reconciliation-runs/${RUN_ID}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({
      run_id: RUN_ID,
      status: 'completed',
      pages: 3,
      listed: 120,
      classes: { matches: 113, stuck: 1 },
      started_by: 'ops@example.com',
    });
    expect((await get('/v1/admin/reconciliation-runs')).json()).toMatchObject({ runs: [{ run_id: RUN_ID }], next_cursor: null });
    const missing = await get('/v1/admin/reconciliation-runs/rcr_00000000-0000-4000-8000-0000000000ff');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'RECONCILIATION.RUN_NOT_FOUND' });
  });

  it('lists exceptions newest first in keyset pages, filtered by class, with the evidence side by side', async () => {
    const first = (await get('/v1/admin/reconciliation-exceptions?limit=1')).json<{ exceptions: Array<Record<string, unknown>>; next_cursor: string }>();
    expect(first.exceptions.map((e) => e.exception_id)).toEqual([REVERSED]);
    expect(first.exceptions[0]).toMatchObject({
      class: 'settled_not_successful',
      amount: 250_000,
      evidence: [{ field: 'status', provider: 'reversed (reversed)', settle: 'SETTLED_CONSENSUS' }],
    });
    const second = (await get(`/v1/admin/reconciliation-exceptions?limit=1&cursor=${first.next_cursor}`)).json<typeof first>();
    expect(second.exceptions.map((e) => e.exception_id)).toEqual([STUCK]);
    expect(second.next_cursor).toBeNull();
    const stuckOnly = (await get('/v1/admin/reconciliation-exceptions?class=stuck')).json<typeof first>();
    expect(stuckOnly.exceptions.map((e) => e.reference)).toEqual(['ref_r_stuck']);
  });

  it('exports every matching exception as CSV with a header row', async () => {
    const answer = await get(`/v1/admin/reconciliation-exceptions?format=csv&run_id=${RUN_ID}`);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/csv/);
    const rows = parse<Record<string, string>>(answer.body, { columns: true });
    expect(rows.map((r) => [r.exception_id, r.class, r.amount_minor])).toEqual([
      [REVERSED, 'settled_not_successful', '250000'],
      [STUCK, 'stuck', '250000'],
    ]);
    expect(rows[1]!.evidence).toBe('status: provider succeeded (success) / settle PENDING');
  });

  it('streams an export of more exceptions than a page holds: every one once, newest first; a page that fails cuts the stream', async () => {
    const bigRun = 'rcr_00000000-0000-4000-8000-0000000000b1';
    const ids = Array.from({ length: 1_203 }, (_, i) => `rex_00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await upsertReconciliation(
      t.pool,
      [{ ...run, data: { ...run.data, run_id: bigRun } }],
      ids.map((id, i) => raised(id, `ref_r_big_${i}`, 'stuck', 0, bigRun, new Date(Date.UTC(2026, 10, 27, 0, 0, i)).toISOString())),
    );
    const answer = await get(`/v1/admin/reconciliation-exceptions?format=csv&run_id=${bigRun}`);
    expect(answer.statusCode).toBe(200);
    const exported = parse<Record<string, string>>(answer.body, { columns: true }).map((r) => r.exception_id);
    expect(exported).toEqual([...ids].reverse());

    // The third page's query fails: the stream ends with its error, not as a shorter document.
    let queries = 0;
    const failing = {
      query: (...args: Parameters<Pool['query']>) => (++queries === 3 ? Promise.reject(new Error('connection lost')) : t.pool.query(...args)),
    } as unknown as Pool;
    const stream = await reconciliationExceptionsCsv(failing, { runId: bigRun });
    await expect(text(stream)).rejects.toThrow('connection lost');
  });
});

describe('POST /v1/admin/reconciliation-exceptions/{id}/resolve', () => {
  it('publishes the resolution with the reason and who, keyed by the payment; 404 and 409 otherwise', async () => {
    const answer = await post(`/v1/admin/reconciliation-exceptions/${STUCK}/resolve`, {
      reason: 'verified by hand with the provider',
      resolved_by: 'lead@example.com',
    });
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual({ exception_id: STUCK, status: 'resolving' });
    expect(await outboxOf('ReconciliationExceptionResolveRequested')).toEqual([
      expect.objectContaining({ exception_id: STUCK, reference: 'ref_r_stuck', reason: 'verified by hand with the provider', resolved_by: 'lead@example.com' }),
    ]);
    const missing = await post('/v1/admin/reconciliation-exceptions/rex_00000000-0000-4000-8000-0000000000ff/resolve', { reason: 'x' });
    expect(missing.json()).toMatchObject({ code: 'RECONCILIATION.EXCEPTION_NOT_FOUND' });
    await upsertReconciliation(
      t.pool,
      [],
      [
        {
          kind: 'resolved',
          ledgerRevision: 1,
          data: {
            exception_id: REVERSED,
            reference: 'ref_r_reversed',
            provider: 'paystack',
            class: 'settled_not_successful',
            resolution: 'operator',
            note: 'done',
            resolved_by: 'a@example.com',
            run_id: null,
            resolved_at: at(5),
          },
        },
      ],
    );
    const closed = await post(`/v1/admin/reconciliation-exceptions/${REVERSED}/resolve`, { reason: 'again' });
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toMatchObject({ code: 'RECONCILIATION.EXCEPTION_NOT_OPEN' });
    expect((await post(`/v1/admin/reconciliation-exceptions/${STUCK}/resolve`, {})).json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    expect(t.answers.violations).toEqual([]);
  });
});
