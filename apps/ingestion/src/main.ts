import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import { loadIngestionConfig, loadTracingConfig } from '@settle/config';
import { packageVersion } from '@settle/http';
import { connectMessaging, kafkaProbe, MessagingMetrics, Outbox, OutboxRelay, schemaRegistryProbe } from '@settle/messaging';
import {
  createLogger,
  createMetricsRegistry,
  createPool,
  guardProcess,
  HealthProbes,
  markReady,
  migrateSchema,
  onShutdown,
  postgresProbe,
  runMain,
  startTracing,
  stopInOrder,
} from '@settle/platform';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { loadWithProviderEnv, webhookAuthenticators } from '@settle/providers';
import { createIngestionApp } from './ingestion-app.js';
import { WEBHOOK_VAULT_SCHEMA, WebhookSecrets } from './webhooks/webhook-secrets.js';
import { INGESTION_MIGRATIONS } from './persistence/schema.js';

/** The repository (or image) root, from `dist/apps/ingestion/src/main.js`: its package.json names the version. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Boots the ingestion app: applies its schemas' migrations, registers schemas, starts the outbox relay,
 * then serves HTTP. Configuration errors stop the boot with the list of bad variables.
 *
 * On SIGTERM or SIGINT it stops in order, within `SHUTDOWN_TIMEOUT_MS`: the HTTP server (no new
 * connection; requests in flight finish, later ones on open connections answer 503
 * `SERVICE.UNAVAILABLE`), the webhook secrets' refresh, the health probes' connections, the relay
 * (publishing what the outbox still holds), the producer, the pool, the tracer (its last spans).
 */
async function main(): Promise<void> {
  // The app's variables and every provider's webhook variables (the registry's), checked together.
  const config = loadWithProviderEnv('ingestion', loadIngestionConfig);
  const authenticators = webhookAuthenticators(process.env);
  const logger = createLogger('ingestion', config.logLevel);
  guardProcess(logger);
  // Before the app exists: its HTTP edge and outbox read the tracer provider and propagator registered here.
  const tracing = startTracing(loadTracingConfig('ingestion'), logger);
  const pool = createPool(config.database.url, config.database.poolSize, (error) =>
    logger.warn({ err: error }, 'database connection lost; the pool opens a new one on next use'),
  );
  // Ingestion owns `ingestion` and `webhook_vault`; it reads `read_model`, which the ledger
  // projector owns and migrates (until it exists, reads answer 503 READ_MODEL.NOT_READY).
  await migrateSchema(pool, INGESTION_MIGRATIONS, logger);

  const { topics, codec, producer } = await connectMessaging({
    clientId: 'settle-ingestion',
    brokers: config.kafka.brokers,
    topicPrefix: config.kafka.topicPrefix,
    registryUrl: config.schemaRegistry.url,
    produces: ['CheckoutRegistered', 'CheckoutCompleted', 'ProviderWebhookReceived', 'VerificationRequested'],
    logger,
  });
  // One registry for the app: the default process metrics, the relay's backlog age, the app's own.
  const registry = createMetricsRegistry();
  const relay = new OutboxRelay(pool, 'ingestion', producer, codec, logger.child({ component: 'outbox' }), {}, new MessagingMetrics(registry));
  const outbox = new Outbox('ingestion', topics, codec);

  // Ingestion's own vault holds the webhook signing secrets, under its own master keys.
  await migrateSchema(pool, vaultMigrations(WEBHOOK_VAULT_SCHEMA), logger);
  const webhookVault = new CredentialsVault(new PostgresVaultStore(pool, WEBHOOK_VAULT_SCHEMA), loadMasterKeyRing(), { logger });
  const webhookSecrets = new WebhookSecrets(webhookVault, config.webhooks.merchantAccount, logger);
  await webhookSecrets.load();
  webhookSecrets.startRefresh(config.webhooks.secretsRefreshMs);

  // Ready while PostgreSQL answers: what ingestion accepts is durable there, and the outbox holds
  // it while Kafka or the registry is away (reported as degraded; docs/observability.md, "Health").
  const health = new HealthProbes(
    [
      postgresProbe(pool),
      kafkaProbe({ brokers: config.kafka.brokers, clientId: 'settle-ingestion', logger, whenFailing: 'degraded' }),
      schemaRegistryProbe(config.schemaRegistry.url, { whenFailing: 'degraded' }),
    ],
    logger,
  );
  const app = await createIngestionApp(
    { config, logger, pool, outbox, relay, webhookSecrets, webhookAuthenticators: authenticators, health, registry },
    packageVersion(ROOT),
  );
  relay.start();
  await app.listen(config.http.port, config.http.host);
  logger.info({ url: await app.getUrl() }, 'ingestion listening');
  markReady(config.readyFile, logger);

  onShutdown(
    logger,
    (progress) =>
      stopInOrder(
        [
          { name: 'http server', stop: () => app.close() },
          { name: 'webhook secrets refresh', stop: () => webhookSecrets.stop() },
          { name: 'health probes', stop: () => health.close() },
          { name: 'outbox relay ingestion', stop: () => relay.stop() },
          { name: 'producer', stop: () => producer.disconnect() },
          { name: 'database pool', stop: () => pool.end() },
          { name: 'tracing', stop: () => tracing.shutdown() },
        ],
        logger,
        progress,
      ),
    { timeoutMs: config.shutdownTimeoutMs },
  );
}

runMain(main);
