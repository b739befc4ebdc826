import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import { loadConsoleConfig } from '@settle/config';
import { packageVersion } from '@settle/http';
import { countMissingSubjectKeys, eventStoreProbe, openLedgerStore } from '@settle/ledger';
import { kafkaProbe } from '@settle/messaging';
import { HealthProbes, postgresProbe } from '@settle/platform';
import { runHttpApp } from '@settle/runtime';
import { loadPrivacyKeyRing, openSubjectKeys, privacyVaultConfigured, privacyVaultMigrations } from '@settle/vault';
import { AuditProjection } from './audit/audit-projection.js';
import { PostgresAuditLog } from './audit/postgres-audit-log.js';
import { ProjectedAuditLog } from './audit/projected-audit-log.js';
import { PostgresAuthStore } from './auth/postgres-auth-store.js';
import { composeConsole } from './compose.js';
import { createConsoleApp } from './console-app.js';
import { DispatcherDeliveryAdmin } from './deliveries/dispatcher-delivery-admin.js';
import { LedgerChainAuditor } from './ledger-chains/ledger-chain-auditor.js';
import { PostgresVerificationLog } from './ledger-chains/postgres-verification-log.js';
import { postgresCheckedEvents, PublishedCheckpointReader } from './ledger-chains/published-checkpoint-reader.js';
import { ConsoleMetrics } from './metrics/console.metrics.js';
import { KafkaAdminSource } from './overview/kafka-admin-source.js';
import { KafkaOverview } from './overview/kafka-overview.js';
import { OverviewService } from './overview/overview.service.js';
import { IngestionReconciler } from './reconcile/ingestion-reconciler.js';
import { PostgresProposalStore } from './approvals/proposal-store.postgres.js';
import { CONSOLE_MIGRATIONS } from './schema.js';

/** How often expired sessions are deleted, milliseconds. */
const SESSION_PURGE_INTERVAL_MS = 10 * 60_000;

/** The built web app, beside the built API: `dist/apps/console/web` from `dist/apps/console/src/main.js`. */
const WEB_DIR = fileURLToPath(new URL('../web', import.meta.url));

/** The repository (or image) root, from `dist/apps/console/src/main.js`: its package.json names the version. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Whether the console holds the privacy vault's master keys (`SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE`
 * or `_KEYS`, docs/privacy.md): read once, at boot, for the migrations and the subjects' keys alike.
 */
const PRIVACY_VAULT = privacyVaultConfigured(process.env);

/**
 * The console (docs/console.md), booted by the shared runtime (`runHttpApp`): it migrates its own
 * schema `console` (it reads the `console_*` views the other apps publish in their own schemas;
 * until they exist its reads answer 503 `READ_MODEL.NOT_READY`), then serves the API and the web
 * app over HTTP. It opens the ledger `LEDGER_STORE` names (`openLedgerStore`): a transaction's
 * timeline and the admin actions' appends go through that store's port. On PostgreSQL the audit
 * view reads the ledger's own events (`PostgresAuditLog`) and the console verifies the hash
 * chains in the background (every `CONSOLE_LEDGER_VERIFY_INTERVAL_MS`), and the ledger against the
 * signed checkpoints of the sink `LEDGER_CHECKPOINT_DIR`; on KurrentDB the audit
 * view reads the console's read model (`ProjectedAuditLog`), which the `AuditProjection` keeps by
 * following the ledger, and the chains are not verified here (docs/console.md, "Audit" and
 * "Ledger verification"). With the privacy vault's master keys (`SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE`
 * or `_KEYS`) it migrates the vault's schema and opens the subjects' keys: proposals seal the
 * persons they name, and an approved `privacy.erase` erases one; without them it warns at boot,
 * and those proposals answer 503 `CONSOLE.PRIVACY_VAULT_MISSING`. Kafka (`KAFKA_BROKERS`) is optional: only the overview reads it. Its
 * `GET /metrics` has the default process metrics, the HTTP latency and the review queues' sizes,
 * counted every 30 s. Configuration errors stop the boot with the list of bad variables.
 *
 * On SIGTERM or SIGINT it stops in order, within `SHUTDOWN_TIMEOUT_MS`: the HTTP server (requests
 * in flight finish), the session purge, the review counting, the ledger verification (a pass in
 * hand finishes) and the audit projection (the event in hand is committed), the health probes'
 * and Kafka admin connections, the ledger store (KurrentDB's gRPC channel), the pool, the tracer.
 */
runHttpApp({
  name: 'console',
  config: loadConsoleConfig,
  migrations: [CONSOLE_MIGRATIONS, ...(PRIVACY_VAULT ? privacyVaultMigrations() : [])],
  build: async (runtime) => {
    const { config, logger, metrics: registry } = runtime.base;
    const pool = runtime.pool;
    const opened = openLedgerStore(config.ledgerStore, pool);
    const ledger = opened.store;
    // PostgreSQL answers the audit view from the ledger's own events, at once; KurrentDB through
    // the console's read model, which the projection keeps (milliseconds behind).
    const projection = opened.kind === 'kurrentdb' ? new AuditProjection(ledger, pool, logger) : null;
    // The persons proposals name are sealed under their own keys, never recorded in plaintext.
    const subjectKeys = PRIVACY_VAULT ? await openSubjectKeys(pool, loadPrivacyKeyRing(), { logger }) : null;
    if (!subjectKeys) {
      logger.warn(
        { alert: 'SETTLE_PRIVACY_VAULT_MISSING' },
        'no privacy vault master keys (SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE or SETTLE_PRIVACY_VAULT_MASTER_KEYS): erasures and matches naming a customer answer 503 CONSOLE.PRIVACY_VAULT_MISSING',
      );
    }
    const services = composeConsole({
      pool,
      ledger,
      auditLog: projection ? new ProjectedAuditLog(pool) : new PostgresAuditLog(pool),
      authStore: new PostgresAuthStore(pool),
      logger,
      sessionTtlMs: config.session.ttlMs,
      proposals: new PostgresProposalStore(pool),
      ingestion: { baseUrl: config.ingestion.url, adminApiKey: config.ingestion.adminApiKey },
      proposalTtlMs: config.proposalTtlMs,
      subjectKeys,
    });
    const { auth, transactions, queues } = services;
    // Kafka is optional: without KAFKA_BROKERS the overview says its figures are not configured.
    const kafka = new KafkaOverview(config.kafka ? new KafkaAdminSource(config.kafka, logger) : null, logger);
    const verifications = new PostgresVerificationLog(pool);
    // The console's own check of the ledger's hash chains; a KurrentDB ledger is not verified here.
    // Each run also checks the ledger against the signed checkpoints of the sink (LEDGER_CHECKPOINT_DIR).
    const signedCheckpoints = new PublishedCheckpointReader(config.ledgerCheckpoints);
    const auditor =
      opened.kind === 'postgres'
        ? new LedgerChainAuditor(opened.store, verifications, logger, {
            fullEveryMs: config.ledger.fullVerifyIntervalMs,
            checkpoints: { read: (after) => signedCheckpoints.read(after), events: postgresCheckedEvents(pool, opened.store) },
          })
        : null;
    const metrics = new ConsoleMetrics(registry);
    const reviewCounting = metrics.reviewCounting(queues, logger);
    // With the privacy vault: sealed values whose key went missing without an erasure (a restore that lost keys).
    const subjectKeyChecking = subjectKeys ? metrics.subjectKeyChecking(() => countMissingSubjectKeys(pool), logger) : null;
    // Ready while PostgreSQL answers; Kafka (the overview's figures only) and a KurrentDB ledger
    // (timelines, admin actions and the audit projection; the reads from PostgreSQL stay up) are
    // reported, degraded when away.
    const health = new HealthProbes(
      [
        postgresProbe(pool),
        ...(opened.kind === 'kurrentdb' ? [{ ...eventStoreProbe(opened), whenFailing: 'degraded' as const }] : []),
        ...(config.kafka ? [kafkaProbe({ brokers: config.kafka.brokers, clientId: 'settle-console', logger, whenFailing: 'degraded' })] : []),
      ],
      logger,
    );
    const purge = setInterval(() => {
      auth.purgeExpiredSessions().catch((error: unknown) => logger.warn({ err: error }, 'expired sessions could not be deleted; retrying later'));
    }, SESSION_PURGE_INTERVAL_MS);
    // After the HTTP server and the app's own hooks, in this order, before the pool and tracing.
    runtime.onStop(
      { name: 'session purge', stop: () => clearInterval(purge) },
      { name: 'review counting', stop: () => reviewCounting.stop() },
      { name: 'subject key check', stop: () => subjectKeyChecking?.stop() },
      { name: 'ledger verification', stop: () => auditor?.stop() },
      { name: 'audit projection', stop: () => projection?.stop() },
      { name: 'health probes', stop: () => health.close() },
      { name: 'kafka admin', stop: () => kafka.close() },
      { name: 'ledger store', stop: () => opened.close() },
    );
    if (!config.dispatcher) logger.warn('no dispatcher configured (CONSOLE_DISPATCHER_URL): the Deliveries pages answer 503 CONSOLE.DELIVERY_NOT_CONFIGURED');
    logger.info(
      {
        webDir: WEB_DIR,
        dispatcher: config.dispatcher?.url ?? null,
        checkpointSink: config.ledgerCheckpoints.dir,
        checkpointKeysFrom: config.ledgerCheckpoints.trustedKeys.length > 0 ? 'LEDGER_CHECKPOINT_KEYS' : 'the sink',
      },
      'console configured',
    );
    const app = await createConsoleApp(
      {
        metrics: registry,
        logger,
        pool,
        health,
        ...services,
        overview: new OverviewService(transactions, pool, kafka, { store: config.ledger.store, log: verifications }),
        reconciler: new IngestionReconciler({ baseUrl: config.ingestion.url, adminApiKey: config.ingestion.adminApiKey }),
        deliveryAdmin: config.dispatcher ? new DispatcherDeliveryAdmin({ baseUrl: config.dispatcher.url, adminApiKey: config.dispatcher.adminApiKey }) : null,
        cookies: { secure: config.session.secureCookies },
        webDir: WEB_DIR,
        apiVersion: packageVersion(ROOT),
      },
      [runtime.module()],
    );
    auditor?.start(config.ledger.verifyIntervalMs);
    projection?.start();
    reviewCounting.start();
    subjectKeyChecking?.start();
    return app;
  },
});
