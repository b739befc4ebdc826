import 'reflect-metadata';
import { loadVerifierConfig } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import { connectMessaging, Outbox, OutboxRelay, startConsumerLoop } from '@settle/messaging';
import { createLogger, createPool, markReady, migrate, onShutdown, runMain } from '@settle/platform';
import { PaystackProvider, type PaymentProvider } from '@settle/providers';
import { VERIFIER_DDL } from './schema.js';
import { TransactionRepository } from './transaction.repository.js';
import { VerificationService } from './verification.service.js';


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

  const paystack = new PaystackProvider({
    baseUrl: config.providers.paystack.baseUrl,
    secretKey: config.providers.paystack.secretKey,
    timeoutMs: config.providers.timeoutMs,
    retry: config.providers.retry,
  });
  const providers = new Map<ProviderName, PaymentProvider>([['paystack', paystack]]);
  const service = new VerificationService(
    pool,
    new TransactionRepository(pool),
    providers,
    new Outbox('verifier', topics, codec),
    relay,
    logger,
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
    await producer.disconnect();
    await paystack.close();
    await pool.end();
  });
}

runMain(main);
