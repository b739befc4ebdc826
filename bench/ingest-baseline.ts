/**
 * The ingest benchmark's baseline (`bench/ingest.ts` starts it as a child process, so its CPU
 * can be read from /proc like the ingestion app's): the least a webhook endpoint can do and
 * still be durable. A bare `node:http` server that, for `POST /v1/webhooks/paystack`,
 *
 * 1. reads the raw body and checks `x-paystack-signature` as the ingestion app does (hex
 *    HMAC-SHA512 of the raw body, constant-time compare);
 * 2. parses the JSON and reads `event` and `data.reference` (400 when missing);
 * 3. builds the same `ProviderWebhookReceived` payload the ingestion app builds (event id from
 *    the SHA-256 of the body), Avro-encodes it with the schema-registry codec;
 * 4. produces it with the project's Kafka producer (`createProducer`: idempotent, one request
 *    in flight, `acks: -1`) to `<prefix>.transaction-events.v1`, keyed by reference,
 *
 * and answers 200 `{"received":true}` only once Kafka acknowledged the record. No framework,
 * no database, no logging per request, no de-duplication.
 *
 * `BASELINE_PRODUCE=batch` (default) coalesces the records of requests that arrive while a
 * produce is in flight into the next `sendBatch` (group commit: every request still waits for
 * its own record's acknowledgement); `BASELINE_PRODUCE=send` makes one `producer.send` per
 * request, which the one-in-flight idempotent producer serialises.
 *
 * Environment: KAFKA_BROKERS, SCHEMA_REGISTRY_URL, SETTLE_TOPIC_PREFIX, PAYSTACK_SECRET_KEY,
 * BASELINE_PORT (0: any free port), BASELINE_PRODUCE. Prints one JSON line
 * `{"ready":true,"port":N}` on stdout once listening; `GET /stats` answers the counters.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isWellFormedReference } from '@settle/domain';
import { connectMessaging, HEADERS, topicFor, type ProviderWebhookReceivedV1 } from '@settle/messaging';
import { createLogger, deterministicId } from '@settle/platform';
// The ingestion app's own Paystack check (hex HMAC-SHA512 of the raw body, constant-time), from the provider's folder.
import { PAYSTACK_SIGNATURE_HEADER, verifyPaystackWebhook } from '@settle/providers';

interface Pending {
  message: { key: string; value: Buffer; headers: Record<string, string> };
  resolve: () => void;
  reject: (error: unknown) => void;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const secret = required('PAYSTACK_SECRET_KEY');
  const mode = process.env.BASELINE_PRODUCE === 'send' ? 'send' : 'batch';
  const logger = createLogger('ingest-baseline', 'warn');
  const { topics, codec, producer } = await connectMessaging({
    clientId: 'settle-ingest-baseline',
    brokers: required('KAFKA_BROKERS').split(','),
    topicPrefix: required('SETTLE_TOPIC_PREFIX'),
    registryUrl: required('SCHEMA_REGISTRY_URL'),
    produces: ['ProviderWebhookReceived'],
    logger,
  });
  const topic = topicFor(topics, 'ProviderWebhookReceived');
  const stats = { received: 0, produced: 0, produceBatches: 0, failed: 0, rejected: 0 };

  // Group commit: what arrives while a sendBatch is in flight goes out in the next one.
  let queue: Pending[] = [];
  let flushing = false;
  const flush = async (): Promise<void> => {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages: batch.map((p) => p.message) }] });
        stats.produceBatches += 1;
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    flushing = false;
  };
  const produce = (message: Pending['message']): Promise<void> => {
    if (mode === 'send') {
      return producer.send({ topic, acks: -1, messages: [message] }).then(() => {
        stats.produceBatches += 1;
      });
    }
    return new Promise<void>((resolve, reject) => {
      queue.push({ message, resolve, reject });
      if (!flushing) void flush();
    });
  };

  const answer = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> => {
    if (req.method === 'GET' && req.url === '/stats') return answer(res, 200, JSON.stringify({ mode, ...stats }));
    if (req.method !== 'POST' || req.url !== '/v1/webhooks/paystack') return answer(res, 404, '{"error":"not found"}');
    stats.received += 1;
    if (!verifyPaystackWebhook(raw, req.headers[PAYSTACK_SIGNATURE_HEADER], [secret]).ok) {
      stats.rejected += 1;
      return answer(res, 401, '{"error":"invalid signature"}');
    }
    let event: { event?: unknown; data?: { reference?: unknown } };
    try {
      event = JSON.parse(raw.toString('utf8')) as typeof event;
    } catch {
      stats.rejected += 1;
      return answer(res, 400, '{"error":"malformed"}');
    }
    const reference = event?.data?.reference;
    if (typeof reference !== 'string' || !isWellFormedReference(reference) || typeof event.event !== 'string') {
      stats.rejected += 1;
      return answer(res, 400, '{"error":"malformed"}');
    }
    const bodySha256 = createHash('sha256').update(raw).digest('hex');
    const eventId = deterministicId('ProviderWebhookReceived', 'paystack', bodySha256);
    const payload: ProviderWebhookReceivedV1 = {
      event_id: eventId,
      occurred_at: Date.now(),
      correlation_id: eventId,
      reference,
      provider: 'paystack',
      provider_event_type: event.event,
      body_sha256: bodySha256,
    };
    try {
      const value = await codec.encode('ProviderWebhookReceived', payload);
      await produce({
        key: reference,
        value,
        headers: { [HEADERS.eventType]: 'ProviderWebhookReceived', [HEADERS.correlationId]: eventId, [HEADERS.causationId]: eventId },
      });
      stats.produced += 1;
      answer(res, 200, '{"received":true}');
    } catch (error) {
      stats.failed += 1;
      logger.error({ err: error }, 'produce failed');
      answer(res, 503, '{"error":"not durable"}');
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void handle(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(Number(process.env.BASELINE_PORT ?? 0), '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port, mode })}\n`);

  const shutdown = (): void => {
    server.closeAllConnections();
    server.close();
    void producer
      .disconnect()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
