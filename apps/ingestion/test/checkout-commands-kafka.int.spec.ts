/**
 * The checkout commands topic end to end through the real consumer loop (docs/api.md, "Two ways
 * in"): the ingestion app built in-process on a topic prefix of its own, its loop started as the
 * boot starts it (`startCheckoutCommandLoop`), commands produced to the real broker, Avro-encoded
 * with the schemas registered in the real registry. The outbox is not relayed, so its rows are
 * the results and events the commands produced; the dead-letter topic is read from Kafka.
 */
import { randomUUID } from 'node:crypto';
import type { Consumer, IHeaders } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HEADERS,
  headerText,
  type CheckoutCommandResultV1,
  type CheckoutRegisteredV1,
  type CompleteCheckoutV1,
  type RegisterCheckoutV1,
} from '@settle/messaging';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { startIngestionTestApp, type IngestionCommandLoop, type IngestionTestApp } from './ingestion-test-app.js';

const PRODUCER = 'checkout-svc';

let t: IngestionTestApp;
let loop: IngestionCommandLoop;
let closed = false;
/** Records of the dead-letter topic, as read: the key and the `dlq-*` headers. */
const deadLetters: Array<{ key: string | null; code?: string; message?: string; sourceTopic?: string; sourceOffset?: string; group?: string }> = [];
let dlqConsumer: Consumer | undefined;

beforeAll(async () => {
  t = await startIngestionTestApp({ commandLoop: true });
  loop = t.commands!;
  dlqConsumer = loop.kafka.consumer({ groupId: `dlq-reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await dlqConsumer.connect();
  await dlqConsumer.subscribe({ topic: t.topics.deadLetter, fromBeginning: true });
  await dlqConsumer.run({
    eachMessage: async ({ message }) => {
      deadLetters.push({
        key: message.key?.toString('utf8') ?? null,
        code: headerText(message.headers, HEADERS.dlqErrorCode),
        message: headerText(message.headers, HEADERS.dlqErrorMessage),
        sourceTopic: headerText(message.headers, HEADERS.dlqSourceTopic),
        sourceOffset: headerText(message.headers, HEADERS.dlqSourceOffset),
        group: headerText(message.headers, HEADERS.dlqConsumerGroup),
      });
    },
  });
}, 60_000);

afterAll(async () => {
  await dlqConsumer?.disconnect();
  if (!closed) await t?.close();
});

const registration = (reference: string, overrides: Partial<RegisterCheckoutV1> = {}): RegisterCheckoutV1 => ({
  event_id: randomUUID(),
  occurred_at: Date.now(),
  correlation_id: `order-${reference}`,
  provider: 'paystack',
  reference,
  amount: 250_000,
  currency: 'NGN',
  user_id: 'user-kafka-1',
  customer: { email: 'ada@example.com', phone: null },
  entitlement: 'pro-monthly',
  access_period: 'P1M',
  ...overrides,
});

const completion = (reference: string): CompleteCheckoutV1 => ({
  event_id: randomUUID(),
  occurred_at: Date.now(),
  correlation_id: `order-${reference}`,
  reference,
});

/** The `POST /v1/checkouts` body a registration command stands for (a null customer field left out, as a JSON body does). */
const bodyOf = (c: RegisterCheckoutV1) => ({
  provider: c.provider,
  reference: c.reference,
  amount: c.amount,
  currency: c.currency,
  user_id: c.user_id,
  customer: { email: c.customer.email },
  entitlement: c.entitlement,
  access_period: c.access_period,
});

const reference = (label: string) => `ref_cmd_${label}_${randomUUID().slice(0, 8)}`;

/** A record of the commands topic: its key, value and headers (the producer's, unless given). */
interface CommandRecord {
  key: string;
  value: Buffer;
  headers: IHeaders;
}

async function command(type: 'RegisterCheckout', payload: RegisterCheckoutV1, headers?: IHeaders): Promise<CommandRecord>;
async function command(type: 'CompleteCheckout', payload: CompleteCheckoutV1, headers?: IHeaders): Promise<CommandRecord>;
async function command(
  type: 'RegisterCheckout' | 'CompleteCheckout',
  payload: RegisterCheckoutV1 | CompleteCheckoutV1,
  headers?: IHeaders,
): Promise<CommandRecord> {
  const value = type === 'RegisterCheckout' ? await loop.codec.encode(type, payload as RegisterCheckoutV1) : await loop.codec.encode(type, payload);
  return { key: payload.reference, value, headers: headers ?? { [HEADERS.eventType]: type, [HEADERS.producer]: PRODUCER } };
}

/** Produces records, in order, to the commands topic; the offset of each (they share a key, hence a partition). */
async function produce(...records: CommandRecord[]): Promise<{ partition: number; baseOffset: string }> {
  const [sent] = await loop.producer.send({ topic: t.topics.checkoutCommands, acks: -1, messages: records });
  return { partition: sent!.partition, baseOffset: sent!.baseOffset! };
}

/** The results in the outbox answering these commands' event ids, once there is one for each (at most 20 s). */
async function resultsOf(...eventIds: string[]): Promise<Array<CheckoutCommandResultV1 & { key: string; topic: string }>> {
  return waitUntil(`results of ${eventIds.length} command(s)`, 20_000, async () => {
    const { rows } = await t.pool.query<{ topic: string; message_key: string; payload: CheckoutCommandResultV1 }>(
      `SELECT topic, message_key, payload FROM ingestion.outbox
        WHERE event_type = 'CheckoutCommandResult' AND payload->>'causation_id' = ANY($1) ORDER BY id`,
      [eventIds],
    );
    if (!eventIds.every((id) => rows.some((r) => r.payload.causation_id === id))) return undefined;
    return rows.map((r) => ({ ...r.payload, key: r.message_key, topic: r.topic }));
  });
}

/** What `POST /v1/checkouts` answers for a body: its status and problem details. */
async function postCheckout(body: unknown): Promise<{ status: number; problem: { code?: string; title?: string; detail?: string; errors?: unknown[] } }> {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/v1/checkouts',
    headers: { authorization: t.apiAuthorization, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: answer.statusCode, problem: answer.json() };
}

/** The problem of a refused result, as the HTTP API would answer it (fields the API leaves out when empty, left out). */
function asHttpProblem(problem: NonNullable<CheckoutCommandResultV1['problem']>) {
  return {
    status: problem.status,
    code: problem.code,
    title: problem.title,
    ...(problem.detail === null ? {} : { detail: problem.detail }),
    ...(problem.errors.length === 0 ? {} : { errors: problem.errors }),
  };
}

describe('checkout commands over Kafka, through the real consumer loop', () => {
  it('a RegisterCheckout then a CompleteCheckout register and complete the checkout, each answered accepted once on the results topic', async () => {
    const ref = reference('ok');
    const register = registration(ref);
    const complete = completion(ref);
    const sent = await produce(await command('RegisterCheckout', register), await command('CompleteCheckout', complete));

    const results = await resultsOf(register.event_id, complete.event_id);
    expect(results).toHaveLength(2);
    expect(results.map((r) => [r.command, r.outcome, r.causation_id, r.correlation_id])).toEqual([
      ['RegisterCheckout', 'accepted', register.event_id, register.correlation_id],
      ['CompleteCheckout', 'accepted', complete.event_id, complete.correlation_id],
    ]);
    for (const r of results) {
      expect(r).toMatchObject({ reference: ref, key: ref, topic: t.topics.checkoutResults, state: 'PENDING', entitlement_status: 'LOCKED', problem: null });
    }

    const { rows: checkout } = await t.pool.query<{ submitted_by: string; amount_minor: string; completed: boolean }>(
      'SELECT submitted_by, amount_minor::text, completed_at IS NOT NULL AS completed FROM ingestion.checkouts WHERE reference = $1',
      [ref],
    );
    expect(checkout).toEqual([{ submitted_by: `kafka:${PRODUCER}`, amount_minor: '250000', completed: true }]);
    const { rows: events } = await t.pool.query<{ topic: string; event_type: string; payload: Partial<CheckoutRegisteredV1> }>(
      `SELECT topic, event_type, payload FROM ingestion.outbox WHERE payload->>'reference' = $1 AND event_type <> 'CheckoutCommandResult' ORDER BY id`,
      [ref],
    );
    expect(events.map((e) => [e.topic, e.event_type])).toEqual([
      [t.topics.transactionEvents, 'CheckoutRegistered'],
      [t.topics.transactionEvents, 'CheckoutCompleted'],
    ]);
    expect(events[0]!.payload).toMatchObject({ amount_minor: 250_000, currency: 'NGN', user_id: 'user-kafka-1', customer_email: 'ada@example.com' });

    // The partition's next offset is stored with the effects, so a redelivered batch is skipped.
    await waitUntil('the offsets stored', 5_000, async () => {
      const { rows } = await t.pool.query<{ next_offset: string }>(
        'SELECT next_offset::text FROM ingestion.checkout_command_offsets WHERE topic = $1 AND partition = $2',
        [t.topics.checkoutCommands, sent.partition],
      );
      return rows[0] && BigInt(rows[0].next_offset) >= BigInt(sent.baseOffset) + 2n ? true : undefined;
    });
  });

  it('dead-letters what it cannot decode or is not a command, with its reason, and answers the command after them', async () => {
    const ref = reference('after_bad');
    const good = registration(ref);
    const misnamed = completion(ref);
    const notACommand: CheckoutRegisteredV1 = {
      event_id: randomUUID(),
      occurred_at: Date.now(),
      correlation_id: randomUUID(),
      reference: ref,
      provider: 'paystack',
      amount_minor: 1_000,
      currency: 'NGN',
      user_id: 'user-1',
      customer_email: 'ada@example.com',
      customer_phone: null,
      entitlement: 'pro',
      access_period: 'P1M',
    };
    const sent = await produce(
      // Not Avro at all.
      { key: ref, value: Buffer.from('not avro, not a command'), headers: { [HEADERS.eventType]: 'RegisterCheckout', [HEADERS.producer]: PRODUCER } },
      // A CompleteCheckout named RegisterCheckout in its header: the RegisterCheckout schema cannot read it.
      await command('CompleteCheckout', misnamed, { [HEADERS.eventType]: 'RegisterCheckout', [HEADERS.producer]: PRODUCER }),
      // A header naming no record type.
      { ...(await command('RegisterCheckout', registration(ref))), headers: { [HEADERS.eventType]: 'Checkout', [HEADERS.producer]: PRODUCER } },
      // A well-formed record of another type: decoded, then refused by the commands' handler.
      { key: ref, value: await loop.codec.encode('CheckoutRegistered', notACommand), headers: { [HEADERS.eventType]: 'CheckoutRegistered' } },
      await command('RegisterCheckout', good),
    );

    const [result] = await resultsOf(good.event_id);
    expect(result).toMatchObject({ command: 'RegisterCheckout', outcome: 'accepted', reference: ref, causation_id: good.event_id });
    const base = BigInt(sent.baseOffset);
    const ours = await waitUntil('four dead letters', 20_000, async () => {
      const found = deadLetters.filter((d) => d.key === ref);
      return found.length >= 4 ? found : undefined;
    });
    const byOffset = ours.map((d) => [d.code, BigInt(d.sourceOffset!) - base] as const).sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    expect(byOffset).toEqual([
      ['MESSAGE.UNDECODABLE', 0n],
      ['MESSAGE.INCOMPATIBLE_SCHEMA', 1n],
      ['MESSAGE.UNKNOWN_TYPE', 2n],
      ['COMMAND.UNKNOWN_TYPE', 3n],
    ]);
    for (const d of ours) expect(d).toMatchObject({ sourceTopic: t.topics.checkoutCommands, group: loop.groupId, message: expect.any(String) });
    // None of them was answered, or registered anything but the good command's checkout.
    const { rows } = await t.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ingestion.outbox WHERE event_type = 'CheckoutCommandResult' AND payload->>'reference' = $1`,
      [ref],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('a refused command is answered with the problem POST /v1/checkouts answers for the same body', async () => {
    // Invalid terms: several fields at once, so the field errors are compared too.
    const invalid = registration(reference('invalid'), { amount: 0, currency: 'ngn', access_period: 'forever' });
    // Other terms for a reference registered over HTTP.
    const taken = registration(reference('taken'));
    expect((await postCheckout(bodyOf(taken))).status).toBe(202);
    const conflicting = { ...taken, event_id: randomUUID(), amount: taken.amount + 100 };
    // A completion of a checkout nobody registered.
    const unknown = completion(reference('unknown'));
    // A command without its producer.
    const unnamed = registration(reference('unnamed'));
    await produce(await command('RegisterCheckout', invalid));
    await produce(await command('RegisterCheckout', conflicting));
    await produce(await command('CompleteCheckout', unknown));
    await produce(await command('RegisterCheckout', unnamed, { [HEADERS.eventType]: 'RegisterCheckout' }));

    const results = await resultsOf(invalid.event_id, conflicting.event_id, unknown.event_id, unnamed.event_id);
    const byCommand = new Map(results.map((r) => [r.causation_id, r]));
    for (const r of results) expect(r).toMatchObject({ outcome: 'refused', state: null, entitlement_status: null, verification: null });

    const invalidAnswer = await postCheckout(bodyOf(invalid));
    expect(invalidAnswer.status).toBe(400);
    expect(invalidAnswer.problem.code).toBe('REQUEST.VALIDATION_FAILED');
    expect(invalidAnswer.problem.errors?.length).toBeGreaterThanOrEqual(3);
    expect(asHttpProblem(byCommand.get(invalid.event_id)!.problem!)).toEqual({ ...pick(invalidAnswer.problem), status: 400 });

    const conflictAnswer = await postCheckout(bodyOf(conflicting));
    expect(conflictAnswer.status).toBe(409);
    expect(asHttpProblem(byCommand.get(conflicting.event_id)!.problem!)).toEqual({ ...pick(conflictAnswer.problem), status: 409 });

    const completeAnswer = await t.app.inject({
      method: 'POST',
      url: `/v1/checkouts/${unknown.reference}/complete`,
      headers: { authorization: t.apiAuthorization },
    });
    expect(completeAnswer.statusCode).toBe(404);
    expect(asHttpProblem(byCommand.get(unknown.event_id)!.problem!)).toEqual({ ...pick(completeAnswer.json()), status: 404 });

    expect(byCommand.get(unnamed.event_id)!.problem).toMatchObject({ status: 400, code: 'COMMAND.PRODUCER_UNNAMED' });
    // Refusals register nothing: the conflicting terms left the HTTP registration as it was.
    const { rows } = await t.pool.query<{ reference: string; amount_minor: string; submitted_by: string }>(
      'SELECT reference, amount_minor::text, submitted_by FROM ingestion.checkouts WHERE reference = ANY($1) ORDER BY reference',
      [[invalid.reference, taken.reference, unknown.reference, unnamed.reference]],
    );
    expect(rows).toEqual([{ reference: taken.reference, amount_minor: String(taken.amount), submitted_by: expect.stringMatching(/^api_key:/) }]);
  });

  it('closing the app stops the loop: the member leaves its group', async () => {
    const started = Date.now();
    await t.close();
    closed = true;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(loop.loops.map((l) => l.state().phase)).toEqual(['stopped']);
    const admin = loop.kafka.admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([loop.groupId]);
      expect(groups[0]).toMatchObject({ groupId: loop.groupId, state: 'Empty', members: [] });
    } finally {
      await admin.disconnect();
    }
  });
});

/** The fields of an HTTP problem a result carries (the rest, `type` and `instance`, are the HTTP answer's own). */
function pick(problem: { code?: string; title?: string; detail?: string; errors?: unknown[] }) {
  return {
    code: problem.code,
    title: problem.title,
    ...(problem.detail === undefined ? {} : { detail: problem.detail }),
    ...(problem.errors === undefined ? {} : { errors: problem.errors }),
  };
}
