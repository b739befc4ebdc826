import 'reflect-metadata';
import { loadVerifierConfig } from '@settle/config';
import { connectMessaging, Outbox, OutboxRelay, startConsumerLoop } from '@settle/messaging';
import { createLogger, createPool, markReady, migrate, onShutdown, runMain, startMetricsServer } from '@settle/platform';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, VAULT_DDL } from '@settle/vault';
import { buildProviders } from './providers.js';
import { VERIFIER_DDL } from './schema.js';
import { TransactionRepository } from './transaction.repository.js';
import { VerificationService } from './verification.service.js';
import { VerifierMetrics } from './verifier.metrics.js';


/**
 * Boots the verifier: consumes the transaction-events stream as a member of its consumer
 * group, queries providers, and publishes consensus results through its outbox.
 */
async function main(): Promise<void> {
  const config = loadVerifierConfig();
  const logger = createLogger('verifier', config.logLevel);
  const pool = createPool(config.database.url, 10, (error) => logger.warn({ err: error }, 'idle database connection lost'));
  await migrate(pool, 'verifier', VERIFIER_DDL);

  const { kafka, topics, codec, producer } = await connectMessaging({
    clientId: 'settle-verifier',
    brokers: config.kafka.brokers,
    topicPrefix: config.kafka.topicPrefix,
    registryUrl: config.schemaRegistry.url,
    produces: ['ConsensusResult'],
    logger,
  });
  const relay = new OutboxRelay(pool, 'verifier', producer, codec, logger.child({ component: 'outbox' }));

  // Only the verifier holds a master key: it alone can decrypt provider credentials.
  await migrate(pool, 'vault', VAULT_DDL);
  const vault = new CredentialsVault(new PostgresVaultStore(pool), loadMasterKeyRing(), { logger });
  const providers = await buildProviders(config, vault);
  logger.info({ providers: [...providers.keys()], account: config.merchantAccount }, 'provider adapters ready');
  const metrics = new VerifierMetrics();
  const metricsServer = config.metricsPort === null ? null : await startMetricsServer(metrics.registry, config.metricsPort, logger);
  const service = new VerificationService(
    pool,
    new TransactionRepository(pool),
    providers,
    new Outbox('verifier', topics, codec),
    relay,
    logger,
    metrics,
  );

  relay.start();
  const loop = await startConsumerLoop({
    kafka,
    groupId: `${config.kafka.topicPrefix}-verifier`,
    topics: [topics.transactionEvents],
    codec,
    producer,
    deadLetterTopic: topics.deadLetter,
    logger,
    handle: (event, context) => service.handle(event, context),
    partitionsConsumedConcurrently: 6,
  });
  markReady(config.readyFile, logger);

  onShutdown(logger, async () => {
    await loop.stop();
    await relay.stop();
    await metricsServer?.close();
    await producer.disconnect();
    await Promise.all([...providers.values()].map((p) => p.close()));
    await pool.end();
  });
}

runMain(main);
