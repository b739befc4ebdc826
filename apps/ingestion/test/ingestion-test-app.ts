/**
 * The ingestion app built in-process for its HTTP tests (`inject`): a fresh PostgreSQL database
 * with ingestion's and the read model's migrations, the schema registry for the outbox's
 * schema checks, webhook secrets held in memory (no vault), and a relay that is never started
 * (rows stay in the outbox, where the tests read them). Every successful answer is checked
 * against the OpenAPI document (`answers`, libs/testing/src/answer-conformance.ts).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadIngestionConfig, Secret } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import { READ_MODEL_MIGRATIONS } from '@settle/ledger';
import {
  AvroCodec,
  createKafka,
  createProducer,
  ensureTopics,
  kafkaProbe,
  MessagingMetrics,
  Outbox,
  schemaRegistryProbe,
  topicNames,
  type ConsumerLoop,
  type OutboxRelay,
  type Topics,
} from '@settle/messaging';
import { createPool, HealthProbes, migrateSchemas, postgresProbe, type Logger, type Pool } from '@settle/platform';
import { webhookAuthenticators } from '@settle/providers';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { Kafka, Producer } from 'kafkajs';
import { watchAnswers, type AnswerConformance, createTestDatabase, infra, uniqueTopicPrefix } from '@settle/testing';
import { startCheckoutCommandLoop } from '../src/commands/checkout-commands.consumer.js';
import { CHECKOUT_COMMAND_TYPES } from '../src/commands/command-results.js';
import { ingestionOpenApiDocument } from '../src/http/openapi/document.js';
import { createIngestionApp } from '../src/ingestion-app.js';
import { INGESTION_CONTROLLERS } from '../src/ingestion.module.js';
import { INGESTION_MIGRATIONS } from '../src/persistence/schema.js';
import type { WebhookSecrets } from '../src/webhooks/webhook-secrets.js';

/** A running in-process ingestion app and what its tests need to talk to it. */
export interface IngestionTestApp {
  app: NestFastifyApplication;
  pool: Pool;
  /** `Authorization` header values of the checkout API and of the admin API. */
  apiAuthorization: string;
  adminAuthorization: string;
  /** Each provider's webhook secret (M-Pesa: the callback token). */
  secrets: Readonly<Record<ProviderName, string>>;
  /** Largest accepted body, bytes. */
  bodyLimitBytes: number;
  /** Successful answers that broke the OpenAPI document, and the routes checked. */
  answers: AnswerConformance;
  /** The app's topics (a prefix of its own). */
  topics: Topics;
  /** The checkout commands topic's consumer loop and what it runs on, when asked for ({@link IngestionTestAppOptions.commandLoop}). */
  commands: IngestionCommandLoop | null;
  close(): Promise<void>;
}

/** The running consumer loop of the checkout commands topic, with the Kafka connections it uses (which a test may produce with). */
export interface IngestionCommandLoop {
  kafka: Kafka;
  /** The idempotent producer the loop dead-letters with. */
  producer: Producer;
  /** A codec with the commands', the results' and ingestion's schemas registered. */
  codec: AvroCodec;
  loops: readonly ConsumerLoop[];
  /** The loop's consumer group (`<prefix>-ingestion`). */
  groupId: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Where the app's readiness looks for its dependencies; default the test infrastructure's. */
export interface IngestionTestAppOptions {
  kafkaBrokers?: string[];
  registryUrl?: string;
  /** The URL the app's pool connects with, from its database's (through a fault proxy, for outages); default that URL. */
  databaseUrlOf?: (url: string) => string;
  /**
   * Also runs the checkout commands topic's consumer loop, as ingestion's boot does
   * (`startCheckoutCommandLoop`): the app's topics created, the commands' schemas registered, its
   * consumer group named after the app's own topic prefix, fetches held at most 100 ms (a prompt
   * stop). `close()` stops it with the app.
   */
  commandLoop?: boolean;
}

/**
 * Builds the app on a database of its own, its readiness on the real PostgreSQL, Kafka and
 * registry (or the addresses given: a closed port for an unreachable one).
 */
export async function startIngestionTestApp(options: IngestionTestAppOptions = {}): Promise<IngestionTestApp> {
  // A start that hangs (seen twice in full runs, never alone) names the step it hangs in.
  let step = 'starting';
  const began = Date.now();
  const watchdog = setInterval(() => console.error(`startIngestionTestApp: still ${step} after ${Math.round((Date.now() - began) / 1000)} s`), 30_000);
  watchdog.unref();
  try {
    step = 'creating the test database';
    const database = await createTestDatabase('settle_ingestion_http');
    const pool = createPool(options.databaseUrlOf?.(database.url) ?? database.url, 6);
    step = 'migrating';
    await migrateSchemas(pool, [INGESTION_MIGRATIONS, READ_MODEL_MIGRATIONS]);
    const apiKey = `api-${randomBytes(12).toString('hex')}`;
    const adminKey = `admin-${randomBytes(12).toString('hex')}`;
    const bodyLimitBytes = 262_144;
    const topicPrefix = uniqueTopicPrefix('ingestion-http');
    const config = loadIngestionConfig({
      DATABASE_URL: database.url,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: infra.registryUrl,
      SETTLE_API_KEY_SHA256: sha256(apiKey),
      SETTLE_ADMIN_API_KEY_SHA256: sha256(adminKey),
      INGESTION_BODY_LIMIT_BYTES: String(bodyLimitBytes),
      LOG_LEVEL: 'fatal',
      ...(options.commandLoop ? { SETTLE_TOPIC_PREFIX: topicPrefix, WORKER_FETCH_MAX_WAIT_MS: '100' } : {}),
    });
    const secrets: Record<ProviderName, string> = {
      paystack: `sk_test_${randomBytes(16).toString('hex')}`,
      stripe: `whsec_${randomBytes(16).toString('hex')}`,
      flutterwave: `hash-${randomBytes(16).toString('hex')}`,
      mpesa: randomBytes(16).toString('hex'),
    };
    const webhookSecrets = { candidates: (provider: ProviderName) => [new Secret(secrets[provider])] } as unknown as WebhookSecrets;
    const topics = topicNames(topicPrefix);
    const relay = { wake: () => undefined } as unknown as OutboxRelay;
    const codec = AvroCodec.connect(infra.registryUrl, topics);
    step = 'registering the schemas';
    await codec.registerAll([
      'CheckoutRegistered',
      'CheckoutCompleted',
      'ProviderWebhookReceived',
      'VerificationRequested',
      'UnmatchedPaymentCloseRequested',
      'ReconciliationRunRequested',
      'ReconciliationExceptionResolveRequested',
      'MismatchResolutionRequested',
      'CheckoutCommandResult',
    ]);
    const logger = pino({ level: 'silent' });
    const health = new HealthProbes([
      postgresProbe(pool),
      kafkaProbe({ brokers: options.kafkaBrokers ?? infra.kafkaBrokers, clientId: 'settle-ingestion-test', logger, whenFailing: 'degraded' }),
      schemaRegistryProbe(options.registryUrl ?? infra.registryUrl, { whenFailing: 'degraded' }),
    ]);
    step = 'creating the app';
    const app = await createIngestionApp({
      config,
      logger,
      health,
      pool,
      outbox: new Outbox('ingestion', topics, codec),
      relay,
      webhookSecrets,
      webhookAuthenticators: webhookAuthenticators({}),
    });
    const answers = watchAnswers(app, ingestionOpenApiDocument(app, 'test', INGESTION_CONTROLLERS), INGESTION_CONTROLLERS);
    step = 'starting the commands loop';
    const commands = options.commandLoop ? await startCommandLoop(app, config, topics, codec, logger) : null;
    step = 'initialising the app';
    await app.init();
    step = 'readying the HTTP server';
    await app.getHttpAdapter().getInstance().ready();
    return {
      app,
      pool,
      apiAuthorization: `Bearer ${apiKey}`,
      adminAuthorization: `Bearer ${adminKey}`,
      secrets,
      bodyLimitBytes,
      answers,
      topics,
      commands,
      close: async () => {
        // Stops the commands loop too (Nest's dispose step), before its producer disconnects.
        await app.close();
        await commands?.producer.disconnect();
        await health.close();
        await pool.end();
        await database.drop();
      },
    };
  } finally {
    clearInterval(watchdog);
  }
}

/** Ingestion's boot, for the commands topic: topics, the commands' schemas, a producer, and the loop on the built app. */
async function startCommandLoop(
  app: NestFastifyApplication,
  config: ReturnType<typeof loadIngestionConfig>,
  topics: Topics,
  codec: AvroCodec,
  logger: Logger,
): Promise<IngestionCommandLoop> {
  const kafka = createKafka('settle-ingestion-test', infra.kafkaBrokers, logger);
  await ensureTopics(kafka, topics);
  await codec.registerAll([...CHECKOUT_COMMAND_TYPES, 'CheckoutCommandResult']);
  const producer = await createProducer(kafka);
  try {
    const loops = await startCheckoutCommandLoop(app, {
      context: { name: 'ingestion', config, kafka, codec, producer, topics, logger },
      messagingMetrics: new MessagingMetrics(new Registry()),
      // The loop's membership is not part of this app's readiness.
      probes: [],
      noteStep: () => undefined,
    });
    return { kafka, producer, codec, loops, groupId: `${config.kafka.topicPrefix}-ingestion` };
  } catch (error) {
    await producer.disconnect();
    throw error;
  }
}

/** The headers that sign a webhook body for a provider (M-Pesa signs nothing: its token is in the URL). */
export function signedHeaders(provider: ProviderName, secret: string, body: string, nowMs = Date.now()): Record<string, string> {
  switch (provider) {
    case 'paystack':
      return { 'x-paystack-signature': createHmac('sha512', secret).update(body).digest('hex') };
    case 'stripe': {
      const t = Math.floor(nowMs / 1000);
      return { 'stripe-signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}` };
    }
    case 'flutterwave':
      return { 'verif-hash': secret };
    case 'mpesa':
      return {};
  }
}

/** The webhook URL of a provider (M-Pesa's carries its token). */
export function webhookUrl(provider: ProviderName, secrets: Readonly<Record<ProviderName, string>>): string {
  return provider === 'mpesa' ? `/v1/webhooks/mpesa/${secrets.mpesa}` : `/v1/webhooks/${provider}`;
}
