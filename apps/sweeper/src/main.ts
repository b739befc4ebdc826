import { loadSweeperConfig } from '@settle/config';
import { connectMessaging, startConsumerLoop } from '@settle/messaging';
import { createLogger, createPool, markReady, migrate, onShutdown, runMain } from '@settle/platform';
import { SweeperService } from './sweeper.service.js';
import { SWEEPER_DDL, WatchRepository } from './watch.repository.js';

/**
 * Boots the sweeper: a consumer-group member over the transaction-events and
 * consensus-results streams, with a tick that requests verification of orphaned
 * transactions.
 */
async function main(): Promise<void> {
  const config = loadSweeperConfig();
  const logger = createLogger('sweeper', config.logLevel);
  const pool = createPool(config.database.url, 5, (error) => logger.warn({ err: error }, 'idle database connection lost'));
  await migrate(pool, 'sweeper', SWEEPER_DDL);

  const { kafka, topics, codec, producer } = await connectMessaging({
    clientId: 'settle-sweeper',
    brokers: config.kafka.brokers,
    topicPrefix: config.kafka.topicPrefix,
    registryUrl: config.schemaRegistry.url,
    produces: ['VerificationRequested'],
    logger,
  });
  const service = new SweeperService(
    pool,
    new WatchRepository(pool),
    producer,
    codec,
    topics,
    config.recovery,
    config.tick,
    logger,
  );

  const loop = await startConsumerLoop({
    kafka,
    groupId: `${config.kafka.topicPrefix}-sweeper`,
    topics: [topics.transactionEvents, topics.consensusResults],
    codec,
    producer,
    deadLetterTopic: topics.deadLetter,
    logger,
    handle: (event, context) => service.handle(event, context),
    partitionsConsumedConcurrently: 2,
  });
  service.start();
  logger.info({ inactivityMs: config.recovery.inactivityMs }, 'sweeper running');
  markReady(config.readyFile, logger);

  onShutdown(logger, async () => {
    await service.stop();
    await loop.stop();
    await producer.disconnect();
    await pool.end();
  });
}

runMain(main);
