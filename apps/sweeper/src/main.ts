import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { loadSweeperConfig } from '@settle/config';
import { coPartitionedAssigner } from '@settle/messaging';
import { defineWorker, runWorker } from '@settle/worker';
import { SweeperMetrics } from './sweeper.metrics.js';
import { PartitionFencedError } from './partition-fencing.js';
import { SweeperService } from './sweeper.service.js';
import { SWEEPER_MIGRATIONS, WatchStore } from './watch.store.js';

/** This process's name as a partition owner, in the store and in every log line. */
const instance = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;

/**
 * The sweeper: a consumer-group member over the co-partitioned transaction-events and
 * consensus-results streams, owning the timers of the partitions the group assigns it, and
 * publishing verification requests through its transactional outbox.
 */
const sweeper = defineWorker({
  name: 'sweeper',
  config: loadSweeperConfig,
  logBindings: { instance },
  migrations: [SWEEPER_MIGRATIONS],
  produces: ['VerificationRequested'],
  outboxes: [{ schema: 'sweeper', relay: { pollIntervalMs: 250, batchSize: 2_000 } }],
  setup: ({ config, pool, topics, logger, metrics: registry, outboxes }) => {
    const metrics = new SweeperMetrics(registry);
    const { outbox, relay } = outboxes.sweeper;
    const store = new WatchStore(pool, instance);
    const service = new SweeperService({ metrics, pool, store, outbox, relay, policy: config.recovery, tick: config.tick, logger });
    return {
      consumers: [
        {
          topics: [topics.transactionEvents, topics.consensusResults],
          handleBatch: (items) => service.handleBatch(items),
          // One fenced transaction per fetch (both topics, every owned partition), not per partition.
          groupCommitAcrossPartitions: true,
          partitionAssigners: [coPartitionedAssigner],
          sessionTimeoutMs: config.sessionTimeoutMs,
          onAssignment: (assignment) => service.onAssignment(assignment),
          onRevocation: () => service.onRevocation(),
          // Not this member's partition (any more): give the batch up rather than retry it for ever.
          abandonBatchWhen: (error) => error instanceof PartitionFencedError,
        },
      ],
      start: () => {
        service.start();
        logger.info({ inactivityMs: config.recovery.inactivityMs, recheck: config.recovery.recheck }, 'sweeper running');
      },
      stop: () => service.stop(),
    };
  },
});

runWorker(sweeper);
