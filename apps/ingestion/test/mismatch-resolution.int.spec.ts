/**
 * `POST /v1/admin/checkouts/{reference}/resolve-mismatch` (docs/state-machine.md, "Resolving a
 * State Mismatch"): the admin key only; the request is checked against the ledger's read model (a
 * State Mismatch, not resolved yet, and, to accept it, no money returned) and, once accepted, is
 * durable in ingestion's outbox (`MismatchResolutionRequested`, and for `refund_due` a
 * `VerificationRequested` that reads the refunds now) before the 202; every refusal is an RFC 9457
 * problem with a stable code. Checkouts are registered through the checkout API; the read-model
 * rows are written by the read model's own writers, as the projector does.
 */
import { randomBytes } from 'node:crypto';
import { updateMoneyStates, updateResolutions, upsertLedgerStatuses } from '@settle/ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestionTestApp, type IngestionTestApp } from './ingestion-test-app.js';

let t: IngestionTestApp;

beforeAll(async () => {
  t = await startIngestionTestApp();
});

afterAll(async () => {
  await t?.close();
});

const REGISTERED = 500_000;

/**
 * Registers a checkout through the checkout API; its reference and the correlation id of its flow.
 * `accessPeriod: null` stands for a checkout registered before access periods existed (the API
 * requires one now): its column is cleared after the registration.
 */
async function register(accessPeriod: string | null = 'P1M'): Promise<{ reference: string; correlationId: string }> {
  const reference = `ref_mm_${randomBytes(5).toString('hex')}`;
  const answer = await t.app.inject({
    method: 'POST',
    url: '/v1/checkouts',
    headers: { authorization: t.apiAuthorization },
    payload: {
      provider: 'paystack',
      reference,
      amount: REGISTERED,
      currency: 'NGN',
      user_id: `user-${reference}`,
      customer: { email: `payer.${reference}@example.com` },
      entitlement: 'pro-monthly',
      access_period: accessPeriod ?? 'P1M',
    },
  });
  expect(answer.statusCode, answer.body).toBe(202);
  if (accessPeriod === null) await t.pool.query('UPDATE ingestion.checkouts SET access_period = NULL WHERE reference = $1', [reference]);
  const [registered] = await outboxOf('CheckoutRegistered', reference);
  return { reference, correlationId: String(registered!.payload.correlation_id) };
}

/** The read model's row for the reference, as the projector writes it: its state, then its money and its resolution when given. */
async function project(reference: string, state: string, extra: { returnedMinor?: number; resolution?: 'accepted_as_paid' | 'refund_due' | 'refunded' } = {}) {
  await upsertLedgerStatuses(t.pool, [
    {
      reference,
      provider: 'paystack',
      state,
      entitlementStatus: state === 'SETTLED_CONSENSUS' ? 'UNLOCKED' : 'LOCKED',
      amountMinor: REGISTERED,
      currency: 'NGN',
      checks: null,
      lastVerdict: 'cleared',
      lastTrigger: 'webhook_received',
      ledgerRevision: 0,
      updatedAt: new Date('2027-03-01T09:00:00.000Z'),
    },
  ]);
  if (extra.returnedMinor !== undefined) {
    await updateMoneyStates(t.pool, [{ reference, moneyState: 'partially_refunded', returnedMinor: extra.returnedMinor, ledgerRevision: 1 }]);
  }
  if (extra.resolution !== undefined) {
    await updateResolutions(t.pool, [{ reference, resolution: extra.resolution, entitlementStatus: null, ledgerRevision: 2 }]);
  }
}

async function outboxOf(type: string, reference: string): Promise<Array<{ key: string; causationId: string | null; payload: Record<string, unknown> }>> {
  const { rows } = await t.pool.query<{ message_key: string; causation_id: string | null; payload: Record<string, unknown> }>(
    'SELECT message_key, causation_id, payload FROM ingestion.outbox WHERE event_type = $1 AND message_key = $2 ORDER BY id',
    [type, reference],
  );
  return rows.map((r) => ({ key: r.message_key, causationId: r.causation_id, payload: r.payload }));
}

/** Every outbox row of a reference but its registration: what a resolution wrote. */
async function resolutionRows(reference: string): Promise<string[]> {
  const { rows } = await t.pool.query<{ event_type: string }>(
    `SELECT event_type FROM ingestion.outbox WHERE message_key = $1 AND event_type <> 'CheckoutRegistered' ORDER BY id`,
    [reference],
  );
  return rows.map((r) => r.event_type);
}

const resolve = (reference: string, body: unknown, authorization: string | null = t.adminAuthorization) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/admin/checkouts/${reference}/resolve-mismatch`,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
  });

const accept = {
  resolution: 'accept_as_paid',
  proposal_id: '0b7c1c1e-6a1f-4f57-9a53-6b1f2b1a9f10',
  proposed_by: 'ops@example.com',
  approved_by: 'cfo@example.com',
  note: 'within the tolerance the merchant accepts',
};
const close = { resolution: 'refund_due', closed_by: 'lead@example.com', note: 'the customer wants the money back' };

/** Expects a problem answer with this status and code. */
function expectProblem(answer: Awaited<ReturnType<typeof resolve>>, status: number, code: string): void {
  expect(answer.statusCode, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.json()).toMatchObject({ status, code });
}

describe('POST /v1/admin/checkouts/{reference}/resolve-mismatch: accepted', () => {
  it('accept_as_paid: 202 resolving, MismatchResolutionRequested in the outbox with the proposal, both people, the note and the access period', async () => {
    const { reference, correlationId } = await register();
    await project(reference, 'STATE_MISMATCH');
    const before = Date.now();
    const answer = await resolve(reference, accept);
    expect(answer.statusCode, answer.body).toBe(202);
    expect(answer.json()).toEqual({ reference, resolution: 'accept_as_paid', status: 'resolving' });

    const requested = await outboxOf('MismatchResolutionRequested', reference);
    expect(requested).toHaveLength(1);
    expect(requested[0]!.payload).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      occurred_at: expect.any(Number),
      correlation_id: correlationId,
      reference,
      resolution: 'accept_as_paid',
      access_period: 'P1M',
      proposal_id: accept.proposal_id,
      proposed_by: 'ops@example.com',
      approved_by: 'cfo@example.com',
      closed_by: null,
      note: 'within the tolerance the merchant accepts',
    });
    expect(requested[0]!.payload.occurred_at as number).toBeGreaterThanOrEqual(before);
    // Nothing else: accepting asks for no verification.
    expect(await resolutionRows(reference)).toEqual(['MismatchResolutionRequested']);
    expect(t.answers.violations).toEqual([]);
  });

  it('accept_as_paid of a checkout registered before access periods existed carries a null one', async () => {
    const { reference } = await register(null);
    await project(reference, 'STATE_MISMATCH');
    expect((await resolve(reference, accept)).statusCode).toBe(202);
    expect((await outboxOf('MismatchResolutionRequested', reference))[0]!.payload).toMatchObject({ access_period: null });
  });

  it('refund_due: 202, MismatchResolutionRequested naming who closed it, and a VerificationRequested (admin_reconciliation) caused by it', async () => {
    const { reference, correlationId } = await register();
    await project(reference, 'STATE_MISMATCH');
    const answer = await resolve(reference, close);
    expect(answer.statusCode, answer.body).toBe(202);
    expect(answer.json()).toEqual({ reference, resolution: 'refund_due', status: 'resolving' });

    expect(await resolutionRows(reference)).toEqual(['MismatchResolutionRequested', 'VerificationRequested']);
    const [requested] = await outboxOf('MismatchResolutionRequested', reference);
    expect(requested!.payload).toMatchObject({
      correlation_id: correlationId,
      reference,
      resolution: 'refund_due',
      closed_by: 'lead@example.com',
      note: 'the customer wants the money back',
      proposal_id: null,
      proposed_by: null,
      approved_by: null,
    });
    const [verification] = await outboxOf('VerificationRequested', reference);
    expect(verification!.payload).toMatchObject({
      correlation_id: correlationId,
      reference,
      trigger: 'admin_reconciliation',
      requested_by: 'refund_due:lead@example.com',
    });
    expect(verification!.payload.event_id).not.toBe(requested!.payload.event_id);
    expect(verification!.causationId).toBe(requested!.payload.event_id);
    expect(t.answers.violations).toEqual([]);
  });

  it('refund_due without a note carries a null one; money already returned does not stop it', async () => {
    const { reference } = await register();
    await project(reference, 'STATE_MISMATCH', { returnedMinor: 450_000 });
    expect((await resolve(reference, { resolution: 'refund_due', closed_by: 'lead@example.com' })).statusCode).toBe(202);
    expect((await outboxOf('MismatchResolutionRequested', reference))[0]!.payload).toMatchObject({ resolution: 'refund_due', note: null });
  });
});

describe('POST /v1/admin/checkouts/{reference}/resolve-mismatch: refused, each as a problem, nothing written', () => {
  it('REQUEST.VALIDATION_FAILED (400): a body that does not validate, and the same person proposing and approving (case-insensitively)', async () => {
    const { reference } = await register();
    await project(reference, 'STATE_MISMATCH');
    const bodies: unknown[] = [
      { ...accept, approved_by: 'OPS@Example.com' },
      { ...accept, approved_by: ' ops@example.com ' },
      { ...accept, note: '' },
      { ...accept, note: 'x'.repeat(501) },
      { resolution: 'accept_as_paid', proposed_by: 'ops@example.com', approved_by: 'cfo@example.com', note: 'no proposal' },
      { ...accept, closed_by: 'lead@example.com' },
      { resolution: 'refund_due' },
      { resolution: 'refund_due', closed_by: 'lead@example.com', note: 'x'.repeat(501) },
      { resolution: 'write_off', closed_by: 'lead@example.com' },
      {},
    ];
    for (const body of bodies) {
      const answer = await resolve(reference, body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.json(), JSON.stringify(body)).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    }
    const same = (await resolve(reference, { ...accept, approved_by: 'OPS@Example.com' })).json<{ errors?: Array<{ path: string }> }>();
    expect(same.errors).toEqual([expect.objectContaining({ path: 'approved_by' })]);
    expect(await resolutionRows(reference)).toEqual([]);
  });

  it('CHECKOUT.NOT_FOUND (404): no checkout has the reference', async () => {
    expectProblem(await resolve('ref_mm_nowhere', accept), 404, 'CHECKOUT.NOT_FOUND');
    expectProblem(await resolve('ref_mm_nowhere', close), 404, 'CHECKOUT.NOT_FOUND');
    expect(await resolutionRows('ref_mm_nowhere')).toEqual([]);
  });

  it('MISMATCH.NOT_STATE_MISMATCH (409): a payment the ledger holds nothing of yet, and one that settled by consensus', async () => {
    const pending = await register();
    expectProblem(await resolve(pending.reference, accept), 409, 'MISMATCH.NOT_STATE_MISMATCH');
    expectProblem(await resolve(pending.reference, close), 409, 'MISMATCH.NOT_STATE_MISMATCH');
    const settled = await register();
    await project(settled.reference, 'SETTLED_CONSENSUS');
    expectProblem(await resolve(settled.reference, accept), 409, 'MISMATCH.NOT_STATE_MISMATCH');
    expectProblem(await resolve(settled.reference, close), 409, 'MISMATCH.NOT_STATE_MISMATCH');
    expect(await resolutionRows(pending.reference)).toEqual([]);
    expect(await resolutionRows(settled.reference)).toEqual([]);
  });

  it('MISMATCH.ALREADY_RESOLVED (409) for the other resolution; the same one asked again is answered 202 and publishes nothing', async () => {
    for (const resolution of ['accepted_as_paid', 'refund_due', 'refunded'] as const) {
      const { reference } = await register();
      await project(reference, 'STATE_MISMATCH', { resolution });
      const [same, other] = resolution === 'accepted_as_paid' ? [accept, close] : [close, accept];
      expectProblem(await resolve(reference, other), 409, 'MISMATCH.ALREADY_RESOLVED');
      const again = await resolve(reference, same);
      expect(again.statusCode).toBe(202);
      expect(again.json()).toEqual({ reference, resolution: same.resolution, status: 'resolving' });
      expect(await resolutionRows(reference)).toEqual([]);
    }
  });

  it('an approval sent twice before the ledger recorded it is one request: its id is derived from the proposal', async () => {
    const { reference } = await register();
    await project(reference, 'STATE_MISMATCH');
    expect((await resolve(reference, accept)).statusCode).toBe(202);
    expect((await resolve(reference, accept)).statusCode).toBe(202);
    const requests = await outboxOf('MismatchResolutionRequested', reference);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.payload.event_id).toBe(requests[1]!.payload.event_id);
  });

  it('MISMATCH.DISPUTE_OPEN (409): accepting a payment with a dispute open; closing it as refund due stays possible', async () => {
    const { reference } = await register();
    await project(reference, 'STATE_MISMATCH');
    await updateMoneyStates(t.pool, [{ reference, moneyState: 'disputed', returnedMinor: 0, ledgerRevision: 1 }]);
    expectProblem(await resolve(reference, accept), 409, 'MISMATCH.DISPUTE_OPEN');
    expect(await resolutionRows(reference)).toEqual([]);
    expect((await resolve(reference, close)).statusCode).toBe(202);
  });

  it('MISMATCH.MONEY_RETURNED (409): accepting a payment whose money went back in part', async () => {
    const { reference } = await register();
    await project(reference, 'STATE_MISMATCH', { returnedMinor: 1 });
    expectProblem(await resolve(reference, accept), 409, 'MISMATCH.MONEY_RETURNED');
    expect(await resolutionRows(reference)).toEqual([]);
  });

  it('401 without the admin key, and with the checkout API key', async () => {
    const { reference } = await register();
    await project(reference, 'STATE_MISMATCH');
    const missing = await resolve(reference, accept, null);
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.json()).toMatchObject({ code: 'AUTH.MISSING_API_KEY' });
    const wrong = await resolve(reference, accept, t.apiAuthorization);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'AUTH.INVALID_API_KEY' });
    expect(await resolutionRows(reference)).toEqual([]);
  });
});
