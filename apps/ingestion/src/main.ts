import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import { loadIngestionConfig } from '@settle/config';
import { packageVersion } from '@settle/http';
import { connectMessaging, kafkaProbe, MessagingMetrics, Outbox, OutboxRelay, schemaRegistryProbe } from '@settle/messaging';
import { HealthProbes, postgresProbe } from '@settle/platform';
import { loadWithProviderEnv, webhookAuthenticators } from '@settle/providers';
import { relayOptionsOf, runHttpApp } from '@settle/runtime';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { startCheckoutCommandLoop } from './commands/checkout-commands.consumer.js';
import { CHECKOUT_COMMAND_TYPES } from './commands/command-results.js';
import { createIngestionApp } from './ingestion-app.js';
import { INGESTION_MIGRATIONS } from './persistence/schema.js';
import { WEBHOOK_VAULT_SCHEMA, WebhookSecrets } from './webhooks/webhook-secrets.js';

/** The repository (or image) root, from `dist/apps/ingestion/src/main.js`: its package.json names the version. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The ingestion app, booted by the shared runtime (`runHttpApp`): it owns `ingestion` and
 * `webhook_vault` and migrates them; it reads `read_model`, which the ledger projector owns and
 * migrates (until it exists, reads answer 503 READ_MODEL.NOT_READY). It registers the schemas it
 * produces and the checkout commands' (which upstream producers write), loads the webhook signing secrets from its own vault (re-read every
 * `WEBHOOK_SECRETS_REFRESH_MS`), starts the outbox relay and the checkout commands topic's
 * consumer loop (docs/api.md, "Two ways in"), then serves HTTP. Configuration errors
 * stop the boot with the list of bad variables.
 *
 * On SIGTERM or SIGINT it stops in order, within `SHUTDOWN_TIMEOUT_MS`: the HTTP server (no new
 * connection; requests in flight finish, later ones on open connections answer 503
 * `SERVICE.UNAVAILABLE`) and the commands consumer loop (its batch in hand finishes and commits), the webhook secrets' refresh, the health probes' connections, the relay
 * (publishing what the outbox still holds), the producer, the pool, the tracer (its last spans).
 */
runHttpApp({
  name: 'ingestion',
  // The app's variables and every provider's webhook variables (the registry's), checked together.
  config: () => loadWithProviderEnv('ingestion', loadIngestionConfig),
  // Ingestion's own vault holds the webhook signing secrets, under its own master keys.
  migrations: [INGESTION_MIGRATIONS, vaultMigrations(WEBHOOK_VAULT_SCHEMA)],
  build: async (runtime) => {
    const { config, logger, metrics: registry } = runtime.base;
    const pool = runtime.pool;
    const { kafka, topics, codec, producer } = await connectMessaging({
      clientId: 'settle-ingestion',
      brokers: config.kafka.brokers,
      topicPrefix: config.kafka.topicPrefix,
      registryUrl: config.schemaRegistry.url,
      produces: [
        'CheckoutRegistered',
        'CheckoutCompleted',
        'ProviderWebhookReceived',
        'VerificationRequested',
        'UnmatchedPaymentCloseRequested',
        'ReconciliationRunRequested',
        'ReconciliationExceptionResolveRequested',
        'MismatchResolutionRequested',
        'CheckoutCommandResult',
      ],
      logger,
    });
    // Settle registers the commands' schemas; upstream producers encode with them and never register.
    await codec.registerAll(CHECKOUT_COMMAND_TYPES);
    const messagingMetrics = new MessagingMetrics(registry);
    // The head of the pipeline: a batch formed here travels through every later stage, so this relay
    // lingers longest while busy (OUTBOX_RELAY_LINGER_MS, whose default is 25 ms here as the workers'
    // is 5; docs/benchmarks.md, "Idle and low rates"); an idle outbox's first wake passes at once.
    const relay = new OutboxRelay(
      pool,
      'ingestion',
      producer,
      codec,
      logger.child({ component: 'outbox' }),
      relayOptionsOf(config, undefined),
      messagingMetrics,
    );
    const webhookVault = new CredentialsVault(new PostgresVaultStore(pool, WEBHOOK_VAULT_SCHEMA), loadMasterKeyRing(), { logger });
    const webhookSecrets = new WebhookSecrets(webhookVault, config.webhooks.merchantAccount, logger);
    // Ready while PostgreSQL answers: what ingestion accepts is durable there, and the outbox holds
    // it while Kafka or the registry is away (reported as degraded; docs/observability.md, "Health").
    // The commands topic's consumer loop adds its membership (degraded when failing) once started.
    const probes = [
      postgresProbe(pool),
      kafkaProbe({ brokers: config.kafka.brokers, clientId: 'settle-ingestion', logger, whenFailing: 'degraded' }),
      schemaRegistryProbe(config.schemaRegistry.url, { whenFailing: 'degraded' }),
    ];
    const health = new HealthProbes(() => probes, logger);
    // After the HTTP server and the app's own hooks, in this order, before the pool and tracing.
    runtime.onStop(
      { name: 'webhook secrets refresh', stop: () => webhookSecrets.stop() },
      { name: 'health probes', stop: () => health.close() },
      { name: 'outbox relay ingestion', stop: () => relay.stop() },
      { name: 'producer', stop: () => producer.disconnect() },
    );
    await webhookSecrets.load();
    webhookSecrets.startRefresh(config.webhooks.secretsRefreshMs);
    const app = await createIngestionApp(
      {
        config,
        logger,
        pool,
        outbox: new Outbox('ingestion', topics, codec),
        relay,
        webhookSecrets,
        webhookAuthenticators: webhookAuthenticators(process.env),
        health,
        registry,
      },
      packageVersion(ROOT),
      [runtime.module()],
    );
    relay.start();
    await startCheckoutCommandLoop(app, {
      context: { name: 'ingestion', config, kafka, codec, producer, topics, logger },
      messagingMetrics,
      probes,
      noteStep: (step) => runtime.noteStep(step),
    });
    return app;
  },
});
