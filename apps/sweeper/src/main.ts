import { loadSweeperConfig } from '@settle/config';
import { AvroCodec, createKafka, createProducer, ensureTopics, startConsumerLoop, topicNames } from '@settle/messaging';
import { createLogger, createPool, markReady, migrate, onShutdown } from '@settle/platform';
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

  const topics = topicNames(config.kafka.topicPrefix);
  const kafka = createKafka('settle-sweeper', config.kafka.brokers, logger);
  await ensureTopics(kafka, topics);
  const codec = AvroCodec.connect(config.schemaRegistry.url, topics);
  await codec.registerAll(['VerificationRequested']);
  const producer = await createProducer(kafka);
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

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
