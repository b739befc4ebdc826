/**
 * An upstream checkout service's side of Settle's checkout commands topic: sends
 * `RegisterCheckout`, `CompleteCheckout` and `VerifyCheckout` to `<prefix>.checkout-commands.v1`
 * (Avro, Confluent wire format, schemas registered by Settle: looked up, never registered here)
 * and reads Settle's answers from `<prefix>.checkout-results.v1` in the producer's own consumer
 * group, matching each to its command by `causation_id`.
 *
 * Nothing sent or read here is a secret: a command carries what `POST /v1/checkouts` carries.
 * Kafka credentials (SASL) are the only secret, passed in and never logged.
 */
import { randomUUID } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel as kafkaLogLevel, Partitioners } from 'kafkajs';

/** The record types of the commands topic. */
export const COMMANDS = /** @type {const} */ (['RegisterCheckout', 'CompleteCheckout', 'VerifyCheckout']);

/** Kafka headers every command carries. */
export const HEADERS = /** @type {const} */ ({ eventType: 'settle-event-type', producer: 'settle-producer' });

/** Settle's namespace of its Avro records; with the topic it names each subject (topic-record strategy). */
const NAMESPACE = 'dev.settle.events.v1';

/** The fields of a `POST /v1/checkouts` body, and of its `customer`: anything else is refused, as the API refuses it. */
const BODY_FIELDS = new Set(['provider', 'reference', 'amount', 'currency', 'user_id', 'customer', 'entitlement', 'access_period']);
const CUSTOMER_FIELDS = new Set(['email', 'phone']);

/**
 * A checkout registration, the body of `POST /v1/checkouts`.
 *
 * @typedef {object} CheckoutBody
 * @property {string} provider - `paystack`, `stripe`, `flutterwave` or `mpesa`.
 * @property {string} reference - the checkout's transaction reference (1-100 URL-safe characters); the Kafka key.
 * @property {number} amount - the expected amount, an integer in minor units (kobo, cents).
 * @property {string} currency - upper-case ISO 4217 code.
 * @property {string} user_id - whom the entitlement is granted to.
 * @property {{ email?: string | null, phone?: string | null }} customer - the payer as the provider reports them.
 * @property {string} entitlement - what the payment buys (`pro-monthly`).
 * @property {string} access_period - ISO 8601 duration the payment buys (`P1M`).
 */

/**
 * Settle's answer to one command (`CheckoutCommandResult`, as decoded).
 *
 * @typedef {object} CheckoutCommandResult
 * @property {string} event_id - the result's own id; the idempotency key of a result read twice.
 * @property {number} occurred_at - when Settle decided, epoch milliseconds.
 * @property {string} correlation_id - the command's, as sent.
 * @property {string} causation_id - the command's `event_id`.
 * @property {'RegisterCheckout' | 'CompleteCheckout' | 'VerifyCheckout'} command
 * @property {string} reference
 * @property {'accepted' | 'duplicate' | 'refused' | 'verified'} outcome
 * @property {string | null} state - the checkout's state after the command; null when refused.
 * @property {string | null} entitlement_status - `LOCKED`, `UNLOCKED` or `HELD_IN_REVIEW`; null when refused.
 * @property {{ status: number, code: string, title: string, detail: string | null, errors: Array<{ path: string, message: string }> } | null} problem - set when refused.
 * @property {{ verification: string, verdict: string | null, coalesced: boolean } | null} verification - a `VerifyCheckout`'s.
 */

/**
 * A command as sent: its ids, and a way to wait for its answer.
 *
 * @typedef {object} SentCommand
 * @property {'RegisterCheckout' | 'CompleteCheckout' | 'VerifyCheckout'} command
 * @property {string} eventId - the command's `event_id` (a fresh UUID); its result's `causation_id`.
 * @property {string} correlationId
 * @property {string} reference
 * @property {number} occurredAt - when it was sent, epoch milliseconds.
 * @property {(options?: WaitOptions) => Promise<CheckoutCommandResult>} result - {@link CheckoutProducer.waitForResult} of this command.
 */

/**
 * @typedef {object} WaitOptions
 * @property {number} [timeoutMs] - how long to wait, milliseconds (default 30,000).
 * @property {boolean} [final] - wait for the command's last answer: a `VerifyCheckout` accepted is
 *   answered again once verified (`verified`); for the other commands the first answer is the last.
 */

/**
 * @typedef {object} CheckoutProducer
 * @property {(body: CheckoutBody, options?: { correlationId?: string }) => Promise<SentCommand>} register - sends `RegisterCheckout`.
 * @property {(reference: string, options?: { correlationId?: string }) => Promise<SentCommand>} complete - sends `CompleteCheckout` (the client finished paying).
 * @property {(reference: string, options?: { correlationId?: string }) => Promise<SentCommand>} verify - sends `VerifyCheckout` (the customer is back after paying out of band).
 * @property {(eventId: string, options?: WaitOptions) => Promise<CheckoutCommandResult>} waitForResult - the answer to a command sent by this instance.
 * @property {(listener: (result: CheckoutCommandResult, meta: { partition: number, offset: string }) => void | Promise<void>) => () => void} onResult -
 *   every result read from the topic (every producer's, at least once: dedupe on `event_id`); returns the unsubscribe function.
 * @property {() => Promise<void>} close - stops the consumer (committing what was read) and the producer.
 */

/**
 * A command's answer did not arrive in time. The command may still be answered later (the result
 * stays on the topic 7 days), and the checkout's state is readable at `GET /v1/checkouts/{reference}`.
 */
export class ResultTimeoutError extends Error {
  /**
   * @param {string} eventId
   * @param {number} timeoutMs
   */
  constructor(eventId, timeoutMs) {
    super(`no result for command ${eventId} within ${timeoutMs} ms`);
    this.name = 'ResultTimeoutError';
    this.eventId = eventId;
  }
}

/**
 * Connects a checkout producer: looks up the three commands' schema ids (Settle registers them;
 * this never does), starts the results consumer in its own group and waits until it joined, and
 * connects an idempotent producer (acks from all in-sync replicas).
 *
 * A group that has never committed an offset is first set to the results topic's current end, so
 * it starts from now: no result of a command sent after `connect` returns is missed, and the
 * topic's older results (every producer's, 7 days of them) are not replayed. A group that has
 * committed resumes where it left off.
 *
 * @param {object} options
 * @param {string[]} options.brokers - Kafka bootstrap servers (`host:port`).
 * @param {string} options.registryUrl - the schema registry's Confluent-compatible API.
 * @param {string} [options.topicPrefix] - Settle's topic prefix (default `settle`).
 * @param {string} options.clientId - this producer's name: the kafkajs client id and the `settle-producer` header (its principal, for Settle's audit).
 * @param {string} [options.resultsGroupId] - the results consumer's group (default `<clientId>-results`).
 * @param {boolean | object} [options.ssl] - kafkajs `ssl`.
 * @param {object} [options.sasl] - kafkajs `sasl` (`{ mechanism, username, password }`); never logged.
 * @param {{ username: string, password: string }} [options.registryAuth] - the registry's basic auth; never logged.
 * @param {number} [options.joinTimeoutMs] - how long to wait for the results consumer to join its group, milliseconds (default 30,000).
 * @param {number} [options.forgetAfterMs] - how long a sent command's answers are kept for {@link CheckoutProducer.waitForResult}, milliseconds (default 600,000).
 * @param {number} [options.logLevel] - kafkajs log level (default `logLevel.WARN`).
 * @returns {Promise<CheckoutProducer>}
 * @throws Error when a command's subject is not in the registry (Settle has not registered its
 *   schemas there), or Kafka refuses the connection, the group (ACLs) or the topics.
 */
export async function connectCheckoutProducer(options) {
  const { brokers, registryUrl, clientId, ssl, sasl, registryAuth } = options;
  if (!Array.isArray(brokers) || brokers.length === 0) throw new TypeError('brokers is required');
  if (!registryUrl) throw new TypeError('registryUrl is required');
  if (!clientId?.trim()) throw new TypeError('clientId is required: it names the producer in the settle-producer header');
  const prefix = options.topicPrefix?.trim() || 'settle';
  const commandsTopic = `${prefix}.checkout-commands.v1`;
  const resultsTopic = `${prefix}.checkout-results.v1`;
  const groupId = options.resultsGroupId?.trim() || `${clientId}-results`;
  const joinTimeoutMs = options.joinTimeoutMs ?? 30_000;
  const forgetAfterMs = options.forgetAfterMs ?? 600_000;

  const registry = new SchemaRegistry({ host: registryUrl, clientId, ...(registryAuth ? { auth: registryAuth } : {}) });
  /** @type {Map<string, number>} */
  const schemaIds = new Map();
  for (const command of COMMANDS) {
    const subject = `${commandsTopic}-${NAMESPACE}.${command}`;
    try {
      schemaIds.set(command, await registry.getLatestSchemaId(subject));
    } catch (error) {
      throw new Error(`the schema registry has no subject ${subject} (Settle registers it; a producer never does): ${error.message}`, { cause: error });
    }
  }

  const kafka = new Kafka({ clientId, brokers, ...(ssl ? { ssl } : {}), ...(sasl ? { sasl } : {}), logLevel: options.logLevel ?? kafkaLogLevel.WARN });
  await startFromNow(kafka, groupId, resultsTopic);

  /**
   * Commands sent by this instance whose answers may still be awaited, by `event_id`.
   *
   * @type {Map<string, { command: string, sentAt: number, results: CheckoutCommandResult[], seen: Set<string>, waiters: Set<() => void> }>}
   */
  const pending = new Map();
  /** @type {Set<(result: CheckoutCommandResult, meta: { partition: number, offset: string }) => void | Promise<void>>} */
  const listeners = new Set();

  const consumer = kafka.consumer({ groupId });
  // Idempotent (acks from all in-sync replicas, retries without duplicates), one request in flight:
  // a reference's commands reach its partition in the order they were sent. The default (murmur2,
  // as Java clients) partitioner: the same reference lands on the same partition from any client.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: resultsTopic, fromBeginning: false });
    const joined = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the results consumer did not join group ${groupId} within ${joinTimeoutMs} ms`)), joinTimeoutMs);
      const stopJoin = consumer.on(consumer.events.GROUP_JOIN, () => {
        clearTimeout(timer);
        stopJoin();
        stopCrash();
        resolve(undefined);
      });
      const stopCrash = consumer.on(consumer.events.CRASH, (event) => {
        if (event.payload.restart) return;
        clearTimeout(timer);
        stopJoin();
        stopCrash();
        reject(event.payload.error);
      });
    });
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        if (headerText(message.headers?.[HEADERS.eventType]) !== 'CheckoutCommandResult' || !message.value) return;
        // Throws while the registry is away: the message is read again (kafkajs retries it).
        /** @type {CheckoutCommandResult} */
        const result = await registry.decode(message.value);
        const mine = pending.get(result.causation_id);
        if (mine && !mine.seen.has(result.event_id)) {
          mine.seen.add(result.event_id);
          mine.results.push(result);
          for (const wake of mine.waiters) wake();
        }
        // A listener that throws has the message read again: its effects must be idempotent (event_id).
        for (const listener of listeners) await listener(result, { partition, offset: message.offset });
      },
    });
    await joined;
    await producer.connect();
  } catch (error) {
    await Promise.allSettled([consumer.disconnect(), producer.disconnect()]);
    throw error;
  }

  // Answers nobody waited for are dropped after forgetAfterMs.
  const sweeper = setInterval(
    () => {
      const before = Date.now() - forgetAfterMs;
      for (const [eventId, entry] of pending) if (entry.sentAt < before && entry.waiters.size === 0) pending.delete(eventId);
    },
    Math.min(forgetAfterMs, 60_000),
  );
  sweeper.unref();

  /**
   * Sends one command, keyed by its reference, with both headers.
   *
   * @param {'RegisterCheckout' | 'CompleteCheckout' | 'VerifyCheckout'} command
   * @param {Record<string, unknown>} fields - the command's own fields beside the ids.
   * @param {string | undefined} correlationId
   * @returns {Promise<SentCommand>}
   */
  async function send(command, fields, correlationId) {
    const reference = /** @type {string} */ (fields.reference);
    if (typeof reference !== 'string' || reference === '') throw new TypeError(`${command} needs a reference`);
    const eventId = randomUUID();
    const occurredAt = Date.now();
    const payload = { event_id: eventId, occurred_at: occurredAt, correlation_id: correlationId ?? eventId, ...fields };
    // Validates against Settle's schema: a missing field or a non-integer amount throws here, before Kafka.
    const value = await registry.encode(/** @type {number} */ (schemaIds.get(command)), payload);
    // Waiting starts before the send: an answer may be read before the send returns.
    pending.set(eventId, { command, sentAt: occurredAt, results: [], seen: new Set(), waiters: new Set() });
    try {
      await producer.send({
        topic: commandsTopic,
        acks: -1,
        messages: [{ key: reference, value, headers: { [HEADERS.eventType]: command, [HEADERS.producer]: clientId } }],
      });
    } catch (error) {
      pending.delete(eventId);
      throw error;
    }
    return { command, eventId, correlationId: payload.correlation_id, reference, occurredAt, result: (wait) => waitForResult(eventId, wait) };
  }

  /**
   * @param {string} eventId
   * @param {WaitOptions} [wait]
   * @returns {Promise<CheckoutCommandResult>}
   */
  function waitForResult(eventId, wait = {}) {
    const entry = pending.get(eventId);
    if (!entry) return Promise.reject(new Error(`command ${eventId} was not sent by this producer, or its answers were forgotten`));
    const timeoutMs = wait.timeoutMs ?? 30_000;
    const wanted = (r) => !wait.final || isLast(entry.command, r);
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = entry.results.find(wanted);
        if (!found) return false;
        done();
        // Kept until its last answer is handed over: a VerifyCheckout's `verified` may be read before its `accepted` is asked for.
        if (isLast(entry.command, found)) pending.delete(eventId);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        reject(new ResultTimeoutError(eventId, timeoutMs));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        entry.waiters.delete(check);
      };
      entry.waiters.add(check);
      check();
    });
  }

  return {
    register(body, { correlationId } = {}) {
      return send('RegisterCheckout', registrationOf(body), correlationId);
    },
    complete(reference, { correlationId } = {}) {
      return send('CompleteCheckout', { reference }, correlationId);
    },
    verify(reference, { correlationId } = {}) {
      return send('VerifyCheckout', { reference }, correlationId);
    },
    waitForResult,
    onResult(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([consumer.disconnect(), producer.disconnect()]);
    },
  };
}

/**
 * The `RegisterCheckout` fields of a `POST /v1/checkouts` body: the same names, a customer field
 * left out sent as `null`.
 *
 * @param {CheckoutBody} body
 * @returns {Record<string, unknown>}
 * @throws TypeError for a field the API does not know (it would refuse the body).
 */
export function registrationOf(body) {
  if (body === null || typeof body !== 'object') throw new TypeError('a checkout body must be an object');
  const unknown = Object.keys(body).filter((k) => !BODY_FIELDS.has(k));
  const customer = body.customer ?? {};
  unknown.push(
    ...Object.keys(customer)
      .filter((k) => !CUSTOMER_FIELDS.has(k))
      .map((k) => `customer.${k}`),
  );
  if (unknown.length > 0) throw new TypeError(`unknown checkout fields: ${unknown.join(', ')}`);
  return {
    provider: body.provider,
    reference: body.reference,
    amount: body.amount,
    currency: body.currency,
    user_id: body.user_id,
    customer: { email: customer.email ?? null, phone: customer.phone ?? null },
    entitlement: body.entitlement,
    access_period: body.access_period,
  };
}

/**
 * Whether a result is its command's last answer: a `VerifyCheckout` accepted is answered again once verified.
 *
 * @param {string} command
 * @param {CheckoutCommandResult} result
 */
function isLast(command, result) {
  return command !== 'VerifyCheckout' || result.outcome !== 'accepted';
}

/** @param {Buffer | string | Array<Buffer | string> | undefined} value */
function headerText(value) {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/**
 * Sets a group that has never committed an offset on the topic to the topic's current end. When
 * another instance of the group started first (the group is no longer empty), it did the same.
 *
 * @param {import('kafkajs').Kafka} kafka
 * @param {string} groupId
 * @param {string} topic
 * @throws kafkajs errors when the topic does not exist or the group may not be read (ACLs).
 */
async function startFromNow(kafka, groupId, topic) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    if (committed && committed.partitions.some((p) => p.offset !== '-1')) return;
    const ends = await admin.fetchTopicOffsets(topic);
    try {
      await admin.setOffsets({ groupId, topic, partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })) });
    } catch (error) {
      // Another instance of the group joined meanwhile ("must have no running instances") and started the same way.
      if (!/no running instances/.test(error.message)) throw error;
    }
  } finally {
    await admin.disconnect();
  }
}
