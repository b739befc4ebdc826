/**
 * The checkout commands topic's batches (docs/api.md, "Two ways in"), handed to the batch
 * handler as the consumer loop hands them, against a real PostgreSQL and the registered schemas:
 * the same rules and answers as the HTTP API, one transaction per batch, each command answered
 * once (a batch delivered again is skipped), who sent it recorded, a VerifyCheckout answered
 * again once its outcome is known. The outbox is not relayed: its rows are what was published.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchItem, CheckoutCommandResultV1, RegisterCheckoutV1, TypedEvent } from '@settle/messaging';
import { CheckoutCommands, COMMAND_VERIFY_WAIT_MS } from '../src/commands/checkout-commands.service.js';
import { registrationBodyOf } from '../src/commands/command-bodies.js';
import { VerificationWaiters } from '../src/commands/verification-waiters.js';
import { startIngestionTestApp, type IngestionTestApp } from './ingestion-test-app.js';

const TOPIC = 'test.checkout-commands.v1';
let t: IngestionTestApp;
let commands: CheckoutCommands;
let waiters: VerificationWaiters;
/** Offsets handed out, per partition. */
const offsets = new Map<number, number>();

beforeAll(async () => {
  t = await startIngestionTestApp();
  commands = t.app.get(CheckoutCommands);
  waiters = t.app.get(VerificationWaiters);
  // The waiters are answered by the test's own passes, at the times it chooses.
  await waiters.onApplicationShutdown();
});

afterAll(async () => {
  await t?.close();
});

/** A batch item as the loop decodes it: the next offset of `partition`, with the producer header unless `producer` is null. */
function item(
  event: TypedEvent,
  { partition = 0, producer = 'orders-service', offset, key }: { partition?: number; producer?: string | null; offset?: number; key?: string } = {},
): BatchItem {
  const next = offset ?? offsets.get(partition) ?? 0;
  if (offset === undefined) offsets.set(partition, next + 1);
  return {
    event,
    context: {
      topic: TOPIC,
      partition,
      offset: String(next),
      key: key ?? (event.payload as { reference: string }).reference,
      timestamp: Date.now(),
      headers: { 'settle-event-type': event.type, ...(producer === null ? {} : { 'settle-producer': producer }) },
    },
  };
}

const ids = () => ({ event_id: randomUUID(), occurred_at: Date.now(), correlation_id: `order-${randomUUID().slice(0, 8)}` });

function registration(reference: string, overrides: Partial<RegisterCheckoutV1> = {}): TypedEvent {
  return {
    type: 'RegisterCheckout',
    payload: {
      ...ids(),
      provider: 'paystack',
      reference,
      amount: 250_000,
      currency: 'NGN',
      user_id: 'user-7',
      customer: { email: 'ada@example.com', phone: null },
      entitlement: 'pro-monthly',
      access_period: 'P1M',
      ...overrides,
    },
  };
}

const completion = (reference: string): TypedEvent => ({ type: 'CompleteCheckout', payload: { ...ids(), reference } });
const verification = (reference: string): TypedEvent => ({ type: 'VerifyCheckout', payload: { ...ids(), reference } });
const newReference = () => `ref_cmd_${randomUUID().slice(0, 12)}`;

/** The results published for a reference, in order. */
async function results(reference: string): Promise<CheckoutCommandResultV1[]> {
  const { rows } = await t.pool.query<{ payload: CheckoutCommandResultV1 }>(
    `SELECT payload FROM ingestion.outbox WHERE event_type = 'CheckoutCommandResult' AND message_key = $1 ORDER BY id`,
    [reference],
  );
  return rows.map((r) => r.payload);
}

async function published(reference: string, type: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: string }>('SELECT count(*) AS n FROM ingestion.outbox WHERE event_type = $1 AND message_key = $2', [
    type,
    reference,
  ]);
  return Number(rows[0]!.n);
}

describe('RegisterCheckout and CompleteCheckout from the topic', () => {
  it('registers and completes in one batch, answers accepted with the command’s ids, and records the producer', async () => {
    const reference = newReference();
    const register = registration(reference);
    const complete = completion(reference);
    expect(await commands.handleBatch([item(register), item(complete)])).toEqual([]);
    const answers = await results(reference);
    expect(answers.map((r) => [r.command, r.outcome, r.state])).toEqual([
      ['RegisterCheckout', 'accepted', 'PENDING'],
      ['CompleteCheckout', 'accepted', 'PENDING'],
    ]);
    expect(answers[0]).toMatchObject({
      causation_id: register.payload.event_id,
      correlation_id: (register.payload as RegisterCheckoutV1).correlation_id,
      problem: null,
    });
    expect(await published(reference, 'CheckoutRegistered')).toBe(1);
    expect(await published(reference, 'CheckoutCompleted')).toBe(1);
    const { rows } = await t.pool.query<{ submitted_by: string; completed_at: Date | null }>(
      'SELECT submitted_by, completed_at FROM ingestion.checkouts WHERE reference = $1',
      [reference],
    );
    expect(rows[0]).toMatchObject({ submitted_by: 'kafka:orders-service' });
    expect(rows[0]!.completed_at).not.toBeNull();
  });

  it('the same command again is a duplicate that changes nothing; other terms are refused with the HTTP API’s conflict', async () => {
    const reference = newReference();
    await commands.handleBatch([item(registration(reference))]);
    await commands.handleBatch([item(registration(reference)), item(completion(reference)), item(completion(reference))]);
    const other = registration(reference, { amount: 1 });
    await commands.handleBatch([item(other)]);
    const answers = await results(reference);
    expect(answers.map((r) => `${r.command}:${r.outcome}`)).toEqual([
      'RegisterCheckout:accepted',
      'RegisterCheckout:duplicate',
      'CompleteCheckout:accepted',
      'CompleteCheckout:duplicate',
      'RegisterCheckout:refused',
    ]);
    expect(await published(reference, 'CheckoutRegistered')).toBe(1);
    expect(await published(reference, 'CheckoutCompleted')).toBe(1);
    const http = await t.app.inject({
      method: 'POST',
      url: '/v1/checkouts',
      headers: { authorization: t.apiAuthorization, 'content-type': 'application/json' },
      payload: {
        provider: 'paystack',
        reference,
        amount: 1,
        currency: 'NGN',
        user_id: 'user-7',
        customer: { email: 'ada@example.com' },
        entitlement: 'pro-monthly',
        access_period: 'P1M',
      },
    });
    expect(http.statusCode).toBe(409);
    const problem = http.json<{ status: number; code: string; title: string; detail: string }>();
    expect(answers[4]!.problem).toEqual({ status: problem.status, code: problem.code, title: problem.title, detail: problem.detail, errors: [] });
  });

  it('refuses invalid terms with the field errors HTTP gives, an unknown reference, and a command naming no producer', async () => {
    const reference = newReference();
    await commands.handleBatch([
      item(registration(reference, { amount: 0, currency: 'ngn' })),
      item(completion(`ref_nobody_${randomUUID().slice(0, 8)}`)),
      item(registration(newReference()), { producer: null }),
    ]);
    const [invalid] = await results(reference);
    expect(invalid!.problem).toMatchObject({ status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    expect(invalid!.problem!.errors.map((e) => e.path).sort()).toEqual(['amount', 'currency']);
    const { rows } = await t.pool.query<{ payload: CheckoutCommandResultV1 }>(
      `SELECT payload FROM ingestion.outbox WHERE event_type = 'CheckoutCommandResult' AND payload->'problem'->>'code' IN ('CHECKOUT.NOT_FOUND', 'COMMAND.PRODUCER_UNNAMED')
        ORDER BY id DESC LIMIT 2`,
    );
    expect(rows.map((r) => [r.payload.command, r.payload.problem!.status, r.payload.problem!.code]).sort()).toEqual([
      ['CompleteCheckout', 404, 'CHECKOUT.NOT_FOUND'],
      ['RegisterCheckout', 400, 'COMMAND.PRODUCER_UNNAMED'],
    ]);
    expect(await published(reference, 'CheckoutRegistered')).toBe(0);
  });

  it('a batch delivered again (a crash after the commit, before the offsets) is answered once', async () => {
    const reference = newReference();
    const batch = [item(registration(reference), { partition: 3 }), item(completion(reference), { partition: 3 })];
    await commands.handleBatch(batch);
    await commands.handleBatch(batch);
    expect((await results(reference)).map((r) => r.outcome)).toEqual(['accepted', 'accepted']);
    expect(await published(reference, 'CheckoutRegistered')).toBe(1);
  });

  it('a run of registrations is decided as each alone: a repeat in the same batch, a refusal, an unnamed producer and a wrong key among them', async () => {
    const [a, b, c, d] = [newReference(), newReference(), newReference(), newReference()];
    await commands.handleBatch([
      item(registration(a)),
      item(registration(b, { currency: 'XXY' })),
      item(registration(a)),
      item(registration(c), { producer: '  ' }),
      item(registration(d), { key: 'another-key' }),
      item(registration(a, { amount: 7 })),
      item(completion(a)),
    ]);
    expect((await results(a)).map((r) => `${r.command}:${r.outcome}`)).toEqual([
      'RegisterCheckout:accepted',
      'RegisterCheckout:duplicate',
      'RegisterCheckout:refused',
      'CompleteCheckout:accepted',
    ]);
    expect((await results(b))[0]!.problem).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED', errors: [{ path: 'currency' }] });
    expect((await results(c))[0]!.problem).toMatchObject({ code: 'COMMAND.PRODUCER_UNNAMED' });
    expect((await results(d))[0]!.problem).toMatchObject({ status: 400, code: 'COMMAND.KEY_MISMATCH' });
    expect(await published(a, 'CheckoutRegistered')).toBe(1);
  });

  it('a fetch larger than one transaction is answered in parts, every command once', async () => {
    const references = Array.from({ length: 1_203 }, () => newReference());
    const batch = references.map((r) => item(registration(r), { partition: 5 }));
    expect(await commands.handleBatch(batch)).toEqual([]);
    // Delivered again after the parts committed: nothing more.
    await commands.handleBatch(batch);
    const { rows } = await t.pool.query<{ n: number; accepted: number }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE payload->>'outcome' = 'accepted') AS accepted
         FROM ingestion.outbox WHERE event_type = 'CheckoutCommandResult' AND message_key = ANY($1::text[])`,
      [references],
    );
    expect(rows[0]).toEqual({ n: 1203, accepted: 1203 });
    const offsets = await t.pool.query<{ next_offset: string }>(
      `SELECT next_offset FROM ingestion.checkout_command_offsets WHERE topic = $1 AND partition = 5`,
      [TOPIC],
    );
    expect(Number(offsets.rows[0]!.next_offset)).toBe(Number(batch.at(-1)!.context.offset) + 1);
  });

  it('refuses text PostgreSQL cannot store as HTTP does, and dead-letters it where the result would repeat it, without holding the partition', async () => {
    const [a, b, c] = [newReference(), newReference(), newReference()];
    const nul = registration(a, { user_id: 'user\u0000-7' });
    const badCorrelation = registration(b);
    (badCorrelation.payload as RegisterCheckoutV1).correlation_id = 'order\u0000';
    const verdicts = await commands.handleBatch([item(nul), item(badCorrelation), item(completion('ref_\u0000')), item(registration(c))]);
    expect(verdicts.map((v) => [v.index, (v.error as { code: string }).code])).toEqual([
      [1, 'REQUEST.INVALID_CHARACTER'],
      [2, 'REQUEST.INVALID_CHARACTER'],
    ]);
    const [refused] = await results(a);
    const http = await t.app.inject({
      method: 'POST',
      url: '/v1/checkouts',
      headers: { authorization: t.apiAuthorization, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...registrationBodyOf(nul.payload as RegisterCheckoutV1) }),
    });
    expect(http.statusCode).toBe(400);
    const problem = http.json<{ status: number; code: string; title: string; detail: string; errors: unknown[] }>();
    expect(refused!.problem).toEqual({ status: problem.status, code: problem.code, title: problem.title, detail: problem.detail, errors: problem.errors });
    expect((await results(c)).map((r) => r.outcome)).toEqual(['accepted']);
  });

  it('dead-letters another record type on the topic, and still answers the commands beside it', async () => {
    const reference = newReference();
    const stray: TypedEvent = { type: 'CheckoutCompleted', payload: { ...ids(), reference } };
    const verdicts = await commands.handleBatch([item(stray), item(registration(reference))]);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]!.index).toBe(0);
    expect(verdicts[0]!.error).toMatchObject({ code: 'COMMAND.UNKNOWN_TYPE' });
    expect((await results(reference)).map((r) => r.outcome)).toEqual(['accepted']);
  });
});

describe('VerifyCheckout from the topic', () => {
  it('is accepted with a verification request, then answered verified once the read model shows that request’s result', async () => {
    const reference = newReference();
    await commands.handleBatch([item(registration(reference)), item(completion(reference))]);
    const verify = verification(reference);
    await commands.handleBatch([item(verify)]);
    const [accepted] = (await results(reference)).filter((r) => r.command === 'VerifyCheckout');
    expect(accepted).toMatchObject({ outcome: 'accepted', verification: { verification: 'requested', coalesced: false } });
    const { rows } = await t.pool.query<{ event_id: string; requested_by: string }>(
      `SELECT payload->>'event_id' AS event_id, payload->>'requested_by' AS requested_by FROM ingestion.outbox
        WHERE event_type = 'VerificationRequested' AND message_key = $1`,
      [reference],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.requested_by).toBe('kafka:orders-service');
    expect(await waiters.pass()).toBe(true);
    // The verifier's answer, as the ledger projector writes it.
    await t.pool.query(
      `INSERT INTO read_model.latest_verification (reference, verdict, trigger, causation_id, state, entitlement_status, decided_at)
       VALUES ($1, 'cleared', 'customer_returned', $2, 'SETTLED_CONSENSUS', 'UNLOCKED', now())`,
      [reference, rows[0]!.event_id],
    );
    await t.pool.query(
      `INSERT INTO read_model.transaction_status (reference, provider, state, entitlement_status, amount_minor, currency, last_verdict, updated_at)
       VALUES ($1, 'paystack', 'SETTLED_CONSENSUS', 'UNLOCKED', 250000, 'NGN', 'cleared', now())`,
      [reference],
    );
    expect(await waiters.pass()).toBe(false);
    const verified = (await results(reference)).filter((r) => r.command === 'VerifyCheckout');
    expect(verified.map((r) => r.outcome)).toEqual(['accepted', 'verified']);
    expect(verified[1]).toMatchObject({
      causation_id: verify.payload.event_id,
      state: 'SETTLED_CONSENSUS',
      entitlement_status: 'UNLOCKED',
      verification: { verification: 'completed', verdict: 'cleared', coalesced: false },
    });
    // Terminal now: a later VerifyCheckout is answered once, at once.
    await commands.handleBatch([item(verification(reference))]);
    const last = (await results(reference)).at(-1)!;
    expect(last).toMatchObject({ outcome: 'verified', verification: { verification: 'not_needed' } });
  });

  it('answers pending when the wait runs out, and refuses an unknown reference', async () => {
    const reference = newReference();
    await commands.handleBatch([item(registration(reference)), item(verification(reference))]);
    expect(await waiters.pass(new Date(Date.now() + COMMAND_VERIFY_WAIT_MS - 1_000))).toBe(true);
    expect(await waiters.pass(new Date(Date.now() + COMMAND_VERIFY_WAIT_MS + 1_000))).toBe(false);
    const verified = (await results(reference)).filter((r) => r.command === 'VerifyCheckout');
    expect(verified.map((r) => [r.outcome, r.verification?.verification])).toEqual([
      ['accepted', 'requested'],
      ['verified', 'pending'],
    ]);
    const unknown = `ref_nobody_${randomUUID().slice(0, 8)}`;
    await commands.handleBatch([item(verification(unknown))]);
    expect((await results(unknown))[0]!.problem).toMatchObject({ status: 404, code: 'CHECKOUT.NOT_FOUND' });
  });
});

describe('HTTP registrations record who sent them', () => {
  it('stores the API key’s id, never the key', async () => {
    const reference = newReference();
    const answer = await t.app.inject({
      method: 'POST',
      url: '/v1/checkouts',
      headers: { authorization: t.apiAuthorization, 'content-type': 'application/json' },
      payload: {
        provider: 'paystack',
        reference,
        amount: 100,
        currency: 'NGN',
        user_id: 'u',
        customer: { email: 'a@example.com' },
        entitlement: 'e',
        access_period: 'P1M',
      },
    });
    expect(answer.statusCode).toBe(202);
    const { rows } = await t.pool.query<{ submitted_by: string }>('SELECT submitted_by FROM ingestion.checkouts WHERE reference = $1', [reference]);
    expect(rows[0]!.submitted_by).toMatch(/^api_key:[0-9a-f]{12}$/);
    expect(t.apiAuthorization).not.toContain(rows[0]!.submitted_by.slice('api_key:'.length));
  });
});
