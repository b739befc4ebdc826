import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Controller, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { loadSweeperConfig, type SweeperConfig } from '@settle/config';
import { coPartitionedAssigner, type BatchItem } from '@settle/messaging';
import { ConsumeBatches, WORKER_CONTEXT, WorkerModule, type WorkerContext } from '@settle/runtime';
import { PartitionFencedError } from './partition-fencing.js';
import { SweeperMetrics } from './sweeper.metrics.js';
import { SweeperService } from './sweeper.service.js';
import { SWEEPER_MIGRATIONS, WatchStore } from './watch.store.js';

/** This process's name as a partition owner, in the store and in every log line. */
const instance = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;

type SweeperContext = WorkerContext<SweeperConfig, 'sweeper'>;

/**
 * The sweeper's consumer loop over the co-partitioned transaction-events and consensus-results
 * streams: one fenced transaction per fetch (both topics, every owned partition), the group's
 * membership told to the {@link SweeperService} (it owns the timers of its partitions), and a
 * batch of a partition this member no longer owns given up rather than retried for ever. Starts
 * the service's timers at boot and stops them once the loop stopped.
 */
@Controller()
export class SweeperController implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly service: SweeperService) {}

  /** @returns the batch's items that can never be applied, and those of partitions it does not own (fenced). */
  @ConsumeBatches<SweeperConfig>('watches', {
    topics: ['transactionEvents', 'consensusResults'],
    groupCommitAcrossPartitions: true,
    partitionAssigners: [coPartitionedAssigner],
    sessionTimeoutMs: (config) => config.sessionTimeoutMs,
    membership: SweeperService,
    // Not this member's partition (any more): give the batch up rather than retry it for ever.
    abandonBatchWhen: (error) => error instanceof PartitionFencedError,
  })
  handle(batch: readonly BatchItem[]): ReturnType<SweeperService['handleBatch']> {
    return this.service.handleBatch(batch);
  }

  onApplicationBootstrap(): void {
    this.service.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.service.stop();
  }
}

/**
 * The sweeper: a consumer-group member over the co-partitioned transaction-events and
 * consensus-results streams, owning the timers of the partitions the group assigns it, and
 * publishing verification requests through its transactional outbox.
 */
@Module({
  imports: [
    WorkerModule.forRoot({
      name: 'sweeper',
      config: loadSweeperConfig,
      logBindings: { instance },
      migrations: [SWEEPER_MIGRATIONS],
      produces: ['VerificationRequested'],
      outboxes: [{ schema: 'sweeper', relay: { pollIntervalMs: 250, batchSize: 2_000 } }],
    }),
  ],
  controllers: [SweeperController],
  providers: [
    {
      provide: SweeperService,
      inject: [WORKER_CONTEXT],
      useFactory: ({ config, pool, logger, metrics, outboxes }: SweeperContext) => {
        const { outbox, relay } = outboxes.sweeper;
        logger.info({ inactivityMs: config.recovery.inactivityMs, recheck: config.recovery.recheck }, 'sweeper configured');
        return new SweeperService({
          metrics: new SweeperMetrics(metrics),
          pool,
          store: new WatchStore(pool, instance),
          outbox,
          relay,
          policy: config.recovery,
          tick: config.tick,
          logger,
        });
      },
    },
  ],
})
export class SweeperModule {}
