import { loadProjectorConfig } from '@settle/config';
import { LEDGER_DDL, PostgresLedger, READ_MODEL_DDL } from '@settle/ledger';
import { connectMessaging, Outbox, OutboxRelay, outboxDdl, startConsumerLoop } from '@settle/messaging';
import { createLogger, createPool, markReady, migrate, onShutdown, runMain } from '@settle/platform';
import { ProjectionService } from './projection.service.js';

/**
 * Boots the ledger projector: consumes consensus results, appends outcomes to the immutable
 * ledger, keeps the read model, and publishes settlement events through its outbox.
 */
async function main(): Promise<void> {
  const config = loadProjectorConfig();
  const logger = createLogger('ledger-projector', config.logLevel);
  const pool = createPool(config.database.url, 10, (error) => logger.warn({ err: error }, 'idle database connection lost'));
  await migrate(pool, 'ledger', [...LEDGER_DDL, ...outboxDdl('ledger')]);
  await migrate(pool, 'read_model', READ_MODEL_DDL);

  const { kafka, topics, codec, producer } = await connectMessaging({
    clientId: 'settle-ledger-projector',
    brokers: config.kafka.brokers,
    topicPrefix: config.kafka.topicPrefix,
    registryUrl: config.schemaRegistry.url,
    produces: ['SettlementRecorded'],
    logger,
  });
  const relay = new OutboxRelay(pool, 'ledger', producer, codec, logger.child({ component: 'outbox' }));
  const service = new ProjectionService(pool, new PostgresLedger(pool), new Outbox('ledger', topics, codec), relay, logger);

  relay.start();
  const loop = await startConsumerLoop({
    kafka,
    groupId: `${config.kafka.topicPrefix}-ledger-projector`,
    topics: [topics.consensusResults],
    codec,
    producer,
    deadLetterTopic: topics.deadLetter,
    logger,
    handle: (event, context) => service.handle(event, context),
    partitionsConsumedConcurrently: 3,
  });
  markReady(config.readyFile, logger);

  onShutdown(logger, async () => {
    await loop.stop();
    await relay.stop();
    await producer.disconnect();
    await pool.end();
  });
}

runMain(main);
