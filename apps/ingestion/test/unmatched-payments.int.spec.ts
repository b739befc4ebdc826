/**
 * `GET /v1/admin/unmatched-payments` (docs/unmatched-payments.md): the payments a provider
 * confirmed for a reference with no checkout, from the ledger's read model, by keyset pages, for
 * the admin key only. The rows are written by the read model's own writer, as the projector does.
 */
import { upsertUnmatchedPayments, type UnmatchedPaymentRecordedData, type UnmatchedPaymentRow } from '@settle/ledger';
import { recordedUnmatchedPayment } from '@settle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestionTestApp, type IngestionTestApp } from './ingestion-test-app.js';

let t: IngestionTestApp;

const recorded = (reference: string, minute: number, extra: Partial<UnmatchedPaymentRecordedData> = {}): UnmatchedPaymentRow =>
  recordedUnmatchedPayment(reference, { verified_at: new Date(Date.UTC(2026, 10, 28, 12, minute)).toISOString(), ...extra });

beforeAll(async () => {
  t = await startIngestionTestApp();
  await upsertUnmatchedPayments(t.pool, [
    recorded('ref_u_c', 3),
    recorded('ref_u_a', 1),
    recorded('ref_u_b', 1),
    recorded('ws_CO_u_mpesa', 2, {
      provider: 'mpesa',
      amount_minor: null,
      currency: 'KES',
      customer_email: null,
      customer_email_masked: null,
      terms_verified: false,
      provider_status: '0',
    }),
    recorded('ref_u_matched', 0),
    { kind: 'matched', reference: 'ref_u_matched', ledgerRevision: 1, matchedAt: new Date(Date.UTC(2026, 10, 28, 12, 30)) },
  ]);
});

afterAll(async () => {
  await t?.close();
});

const list = (query: string, authorization = t.adminAuthorization) =>
  t.app.inject({ method: 'GET', url: `/v1/admin/unmatched-payments${query}`, headers: { authorization } });

describe('GET /v1/admin/unmatched-payments', () => {
  it('lists the open ones oldest first (ties by reference) in keyset pages, amounts in minor units, M-Pesa unverified', async () => {
    const first = await list('?limit=2');
    expect(first.statusCode).toBe(200);
    const page1 = first.json<{ unmatched_payments: Array<Record<string, unknown>>; next_cursor: string | null }>();
    expect(page1.unmatched_payments.map((p) => p.reference)).toEqual(['ref_u_a', 'ref_u_b']);
    expect(page1.unmatched_payments[0]).toEqual({
      reference: 'ref_u_a',
      provider: 'paystack',
      status: 'open',
      amount: 250_000,
      currency: 'NGN',
      // Masked (docs/privacy.md, "Masked forms"); the sealed value is never shown.
      customer: { email: 'r•••@example.com', phone: null },
      terms_verified: true,
      provider_status: 'success',
      provider_transaction_id: null,
      verified_at: '2026-11-28T12:01:00.000Z',
      matched_at: null,
      closed: null,
    });
    const page2 = (await list(`?limit=2&cursor=${page1.next_cursor}`)).json<typeof page1>();
    expect(page2.unmatched_payments.map((p) => [p.reference, p.amount, p.terms_verified])).toEqual([
      ['ws_CO_u_mpesa', null, false],
      ['ref_u_c', 250_000, true],
    ]);
    expect(page2.next_cursor).toBeNull();
    expect(JSON.stringify([page1, page2])).not.toMatch(/sealed:|ref_u_\w+@example\.com/);
  });

  it('lists the matched ones apart, with when', async () => {
    const answer = (await list('?status=matched')).json<{ unmatched_payments: Array<Record<string, unknown>> }>();
    expect(answer.unmatched_payments.map((p) => [p.reference, p.status, p.matched_at])).toEqual([['ref_u_matched', 'matched', '2026-11-28T12:30:00.000Z']]);
  });

  it('refuses a bad query with a 400 problem naming the field, and the checkout API key with 401 (the answers carry customers’ contacts)', async () => {
    for (const query of ['?limit=0', '?limit=101', '?status=deleted', '?cursor=nope!']) {
      const answer = await list(query);
      expect(answer.statusCode, query).toBe(400);
      expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(answer.json(), query).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
    const refused = await list('', t.apiAuthorization);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'AUTH.INVALID_API_KEY' });
    expect(t.answers.violations).toEqual([]);
  });
});

describe('POST /v1/admin/unmatched-payments/{reference}/match', () => {
  const terms = {
    amount: 250_000,
    currency: 'NGN',
    user_id: 'user-77',
    customer: { email: 'payer@example.com' },
    entitlement: 'pro-monthly',
    access_period: 'P1M',
  };
  const match = (reference: string, body: unknown, authorization = t.adminAuthorization) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/admin/unmatched-payments/${reference}/match`,
      payload: JSON.stringify(body),
      headers: { authorization, 'content-type': 'application/json' },
    });

  it("registers the checkout under the open payment's reference and provider with the operator's terms, through the registration path", async () => {
    const answer = await match('ref_u_c', terms);
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual({ reference: 'ref_u_c', state: 'PENDING' });
    const { rows } = await t.pool.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM ingestion.outbox WHERE event_type = 'CheckoutRegistered' AND message_key = $1`,
      ['ref_u_c'],
    );
    expect(rows.map((r) => r.payload)).toEqual([
      expect.objectContaining({ reference: 'ref_u_c', provider: 'paystack', amount_minor: 250_000, user_id: 'user-77', entitlement: 'pro-monthly' }),
    ]);
    // The same terms again answer the same (idempotent registration); other terms conflict.
    expect((await match('ref_u_c', terms)).statusCode).toBe(202);
    expect((await match('ref_u_c', { ...terms, amount: 1 })).json()).toMatchObject({ code: 'CHECKOUT.CONFLICT' });
  });

  it('refuses an unknown or matched payment, terms that do not validate, and a provider or reference in the body', async () => {
    expect((await match('ref_u_nowhere', terms)).json()).toMatchObject({ status: 404, code: 'UNMATCHED_PAYMENT.NOT_FOUND' });
    expect((await match('ref_u_matched', terms)).json()).toMatchObject({ status: 409, code: 'UNMATCHED_PAYMENT.NOT_OPEN' });
    const invalid = await match('ref_u_a', { ...terms, amount: 12.5 });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED', errors: [expect.objectContaining({ path: 'amount' })] });
    expect((await match('ref_u_a', { ...terms, provider: 'stripe' })).json()).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    expect((await match('ref_u_a', terms, t.apiAuthorization)).statusCode).toBe(401);
    expect(t.answers.violations).toEqual([]);
  });
});

describe('POST /v1/admin/unmatched-payments/{reference}/close', () => {
  const close = (reference: string, body: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/admin/unmatched-payments/${reference}/close`,
      payload: JSON.stringify(body),
      headers: { authorization: t.adminAuthorization, 'content-type': 'application/json' },
    });

  it('publishes the close request of an open payment, with the reason, the note and who closed it', async () => {
    const answer = await close('ref_u_b', { reason: 'not_ours', note: 'the shop next door', closed_by: 'ops@example.com' });
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual({ reference: 'ref_u_b', status: 'closing' });
    const { rows } = await t.pool.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM ingestion.outbox WHERE event_type = 'UnmatchedPaymentCloseRequested' AND message_key = $1`,
      ['ref_u_b'],
    );
    expect(rows.map((r) => r.payload)).toEqual([
      expect.objectContaining({ reference: 'ref_u_b', reason: 'not_ours', note: 'the shop next door', closed_by: 'ops@example.com' }),
    ]);
  });

  it('refuses an unknown reason, an unknown or matched payment, each as problem details', async () => {
    expect((await close('ref_u_b', { reason: 'because' })).json()).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    expect((await close('ref_u_nowhere', { reason: 'test_payment' })).json()).toMatchObject({ status: 404, code: 'UNMATCHED_PAYMENT.NOT_FOUND' });
    expect((await close('ref_u_matched', { reason: 'test_payment' })).json()).toMatchObject({ status: 409, code: 'UNMATCHED_PAYMENT.NOT_OPEN' });
    expect(t.answers.violations).toEqual([]);
  });
});
