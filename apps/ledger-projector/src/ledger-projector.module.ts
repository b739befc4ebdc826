import { Controller, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { loadProjectorConfig, type ProjectorConfig } from '@settle/config';
import {
  CheckpointedLedgerProjection,
  EventStoreLedgerWriter,
  eventStoreProbe,
  LEDGER_MIGRATIONS,
  openLedgerStore,
  PostgresLedgerWriter,
  READ_MODEL_MIGRATIONS,
  upsertLatestVerifications,
  type LedgerWriter,
} from '@settle/ledger';
import type { BatchItem } from '@settle/messaging';
import { ConsumeBatches, WORKER_CONTEXT, WorkerModule, type WorkerContext } from '@settle/runtime';
import { AfterSettlementProjection } from './after-settlement.js';
import { ProjectionService } from './projection.service.js';
import { ProjectorMetrics } from './projector.metrics.js';

type ProjectorContext = WorkerContext<ProjectorConfig, 'ledger'>;

/** The ledger's writer, and on an event store the projection that follows it (token {@link LEDGER}). */
interface OpenedLedger {
  writer: LedgerWriter;
  /** KurrentDB only: the checkpointed projection of `$all` that keeps the read models and fills the outbox. */
  projection: CheckpointedLedgerProjection | null;
  close(): Promise<void>;
}

const LEDGER = Symbol('LEDGER');

/**
 * The projector's consumer loop: every batch of consensus results to the
 * {@link ProjectionService}, one session (on PostgreSQL one lock of the ledger head) per fetch,
 * not per partition. On KurrentDB it starts the projection at boot and stops it, then closes the
 * store, once the loop stopped.
 */
@Controller()
export class ProjectionController implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly service: ProjectionService,
    @Inject(LEDGER) private readonly ledger: OpenedLedger,
  ) {}

  /** @returns the batch's items that can never be appended, for the dead-letter topic. */
  @ConsumeBatches('projection', { topics: ['consensusResults'], groupCommitAcrossPartitions: true })
  handle(batch: readonly BatchItem[]): ReturnType<ProjectionService['handleBatch']> {
    return this.service.handleBatch(batch);
  }

  onApplicationBootstrap(): void {
    this.ledger.projection?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.projection?.stop();
    await this.ledger.close();
  }
}

/**
 * The ledger projector: consumes consensus results, appends outcomes to the immutable
 * ledger (and the entitlement grants they cause), keeps the read models, and publishes
 * settlement and entitlement events through its outbox. `LEDGER_STORE` picks the ledger:
 * PostgreSQL (appends, read models and outbox in one transaction per batch) or KurrentDB
 * (the append is the commit; a checkpointed projection of `$all` keeps the read models and
 * fills the outbox; docs/ledger.md, "One port, two stores").
 */
@Module({
  imports: [
    WorkerModule.forRoot({
      name: 'ledger-projector',
      config: loadProjectorConfig,
      // The projector owns both schemas: `ledger` (its outbox and, on an event store, the projection
      // checkpoints live there whichever store holds the events) and `read_model`, which ingestion
      // reads (docs/postgres.md).
      migrations: [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS],
      produces: ['SettlementRecorded', 'SettledByOverride', 'MoneyMovementRecorded', 'EntitlementGranted', 'EntitlementAccessChanged'],
      outboxes: [{ schema: 'ledger' }],
    }),
  ],
  controllers: [ProjectionController],
  providers: [
    {
      provide: LEDGER,
      inject: [WORKER_CONTEXT],
      useFactory: ({ config, pool, logger, outboxes, addHealthProbes }: ProjectorContext): OpenedLedger => {
        const { outbox, relay } = outboxes.ledger;
        const opened = openLedgerStore(config.ledgerStore, pool);
        logger.info({ ledgerStore: opened.kind }, 'ledger store selected');
        // Readiness also reflects the ledger's store (on KurrentDB, its server).
        addHealthProbes([eventStoreProbe(opened)]);
        if (opened.kind === 'postgres')
          return { writer: new PostgresLedgerWriter(pool, opened.store, outbox, relay), projection: null, close: () => opened.close() };
        const projection = new CheckpointedLedgerProjection(pool, opened.store, outbox, relay, logger.child({ component: 'ledger-projection' }));
        const writer = new EventStoreLedgerWriter(
          opened.store,
          (rows) => upsertLatestVerifications(pool, rows),
          () => projection.wake(),
        );
        return { writer, projection, close: () => opened.close() };
      },
    },
    {
      provide: ProjectionService,
      inject: [WORKER_CONTEXT, LEDGER],
      useFactory: ({ config, logger, metrics }: ProjectorContext, ledger: OpenedLedger) =>
        new ProjectionService(ledger.writer, logger, new ProjectorMetrics(metrics), new AfterSettlementProjection(logger, config.accessPolicies)),
    },
  ],
})
export class LedgerProjectorModule {}
