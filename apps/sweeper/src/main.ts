import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { loadSweeperConfig } from '@settle/config';
import { connectMessaging, coPartitionedAssigner, Outbox, outboxDdl, OutboxRelay, startConsumerLoop } from '@settle/messaging';
import { createLogger, createPool, markReady, migrate, onShutdown, runMain, startMetricsServer } from '@settle/platform';
import { SweeperMetrics } from './sweeper.metrics.js';
import { PartitionFencedError, SweeperService } from './sweeper.service.js';
import { SWEEPER_DDL, WatchStore } from './watch.store.js';

/**
 * Boots the sweeper: a consumer-group member over the co-partitioned transaction-events and
 * consensus-results streams, owning the timers of the partitions the group assigns it, and
 * publishing verification requests through its transactional outbox.
 */
async function main(): Promise<void> {
  const config = loadSweeperConfig();
  const instance = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const logger = createLogger('sweeper', config.logLevel).child({ instance });
  const pool = createPool(config.database.url, 5, (error) => logger.warn({ err: error }, 'idle database connection lost'));
  await migrate(pool, 'sweeper', [...SWEEPER_DDL, ...outboxDdl('sweeper')]);

  const { kafka, topics, codec, producer } = await connectMessaging({
    clientId: 'settle-sweeper',
    brokers: config.kafka.brokers,
    topicPrefix: config.kafka.topicPrefix,
    registryUrl: config.schemaRegistry.url,
    produces: ['VerificationRequested'],
    logger,
  });
  const relay = new OutboxRelay(pool, 'sweeper', producer, codec, logger.child({ component: 'outbox' }), {
    pollIntervalMs: 250,
    batchSize: 2_000,
  });
  const metrics = new SweeperMetrics();
  const metricsServer = config.metricsPort === null ? null : await startMetricsServer(metrics.registry, config.metricsPort, logger);
  const service = new SweeperService({
    metrics,
    pool,
    store: new WatchStore(pool, instance),
    outbox: new Outbox('sweeper', topics, codec),
    relay,
    policy: config.recovery,
    tick: config.tick,
    logger,
  });

  relay.start();
  const loop = await startConsumerLoop({
    kafka,
    groupId: `${config.kafka.topicPrefix}-sweeper`,
    topics: [topics.transactionEvents, topics.consensusResults],
    codec,
    producer,
    deadLetterTopic: topics.deadLetter,
    logger,
    handleBatch: (items) => service.handleBatch(items),
    partitionAssigners: [coPartitionedAssigner],
    sessionTimeoutMs: config.sessionTimeoutMs,
    onAssignment: (assignment) => service.onAssignment(assignment),
    onRevocation: () => service.onRevocation(),
    // Not this member's partition (any more): give the batch up rather than retry it for ever.
    abandonBatchWhen: (error) => error instanceof PartitionFencedError,
    partitionsConsumedConcurrently: 2,
  });
  service.start();
  logger.info({ inactivityMs: config.recovery.inactivityMs, recheck: config.recovery.recheck }, 'sweeper running');
  markReady(config.readyFile, logger);

  onShutdown(logger, async () => {
    await service.stop();
    await loop.stop();
    await relay.stop();
    await metricsServer?.close();
    await producer.disconnect();
    await pool.end();
  });
}

runMain(main);
