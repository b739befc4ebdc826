import { Controller, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { loadProjectorConfig, type ProjectorConfig } from '@settle/config';
import {
  CheckpointedLedgerProjection,
  EventStoreLedgerWriter,
  eventStoreProbe,
  FolderCheckpointSink,
  LEDGER_MIGRATIONS,
  LEDGER_VAULT_SCHEMA,
  LedgerCheckpointer,
  openLedgerStore,
  PostgresLedgerWriter,
  PostgresMerkleLog,
  READ_MODEL_MIGRATIONS,
  upsertLatestVerifications,
  VaultCheckpointKey,
  type LedgerWriter,
} from '@settle/ledger';
import type { BatchItem } from '@settle/messaging';
import { ConsumeBatches, WORKER_CONTEXT, WorkerModule, type WorkerContext } from '@settle/runtime';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { AfterSettlementProjection } from './after-settlement.js';
import { CheckpointSchedule } from './checkpoints/checkpoint-schedule.js';
import { ProjectionService } from './projection.service.js';
import { ProjectorMetrics } from './projector.metrics.js';

type ProjectorContext = WorkerContext<ProjectorConfig, 'ledger'>;

/** The ledger's writer, and on an event store the projection that follows it (token {@link LEDGER}). */
interface OpenedLedger {
  writer: LedgerWriter;
  /** KurrentDB only: the checkpointed projection of `$all` that keeps the read models and fills the outbox. */
  projection: CheckpointedLedgerProjection | null;
  /** PostgreSQL only: the signed checkpoints' schedule (docs/ledger.md, "Checkpoints"). */
  checkpoints: CheckpointSchedule | null;
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
    this.ledger.checkpoints?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.checkpoints?.stop();
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
      migrations: [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS, vaultMigrations(LEDGER_VAULT_SCHEMA)],
      produces: ['SettlementRecorded', 'SettledByOverride', 'MoneyMovementRecorded', 'EntitlementGranted', 'EntitlementAccessChanged', 'LedgerCheckpointed'],
      outboxes: [{ schema: 'ledger' }],
    }),
  ],
  controllers: [ProjectionController],
  providers: [
    { provide: ProjectorMetrics, inject: [WORKER_CONTEXT], useFactory: ({ metrics }: ProjectorContext) => new ProjectorMetrics(metrics) },
    {
      provide: LEDGER,
      inject: [WORKER_CONTEXT, ProjectorMetrics],
      useFactory: ({ config, pool, logger, outboxes, addHealthProbes }: ProjectorContext, metrics: ProjectorMetrics): OpenedLedger => {
        const { outbox, relay } = outboxes.ledger;
        const opened = openLedgerStore(config.ledgerStore, pool);
        logger.info({ ledgerStore: opened.kind }, 'ledger store selected');
        // Readiness also reflects the ledger's store (on KurrentDB, its server).
        addHealthProbes([eventStoreProbe(opened)]);
        if (opened.kind === 'postgres') {
          const writer = new PostgresLedgerWriter(pool, opened.store, outbox, relay);
          const { origin, intervalMs, dir } = config.checkpoints;
          const key = new VaultCheckpointKey(new CredentialsVault(new PostgresVaultStore(pool, LEDGER_VAULT_SCHEMA), loadMasterKeyRing(), { logger }), origin);
          const sink = dir ? new FolderCheckpointSink(dir) : null;
          if (!sink) logger.warn('LEDGER_CHECKPOINT_DIR is not set: checkpoints are published on Kafka only (settle_ledger_checkpoint_sink_up is 0)');
          const checkpointer = new LedgerCheckpointer(pool, writer, new PostgresMerkleLog(pool), key, sink, origin);
          const schedule = new CheckpointSchedule(checkpointer, intervalMs, metrics, logger.child({ component: 'ledger-checkpoints' }));
          return { writer, projection: null, checkpoints: schedule, close: () => opened.close() };
        }
        // KurrentDB keeps no global chain: what a checkpoint would commit to there is in docs/ledger.md; none is made.
        logger.warn('signed checkpoints need the PostgreSQL ledger (docs/ledger.md, "Checkpoints on KurrentDB"); none are made');
        const projection = new CheckpointedLedgerProjection(pool, opened.store, outbox, relay, logger.child({ component: 'ledger-projection' }));
        const writer = new EventStoreLedgerWriter(
          opened.store,
          (rows) => upsertLatestVerifications(pool, rows),
          () => projection.wake(),
        );
        return { writer, projection, checkpoints: null, close: () => opened.close() };
      },
    },
    {
      provide: ProjectionService,
      inject: [WORKER_CONTEXT, LEDGER, ProjectorMetrics],
      useFactory: ({ config, logger }: ProjectorContext, ledger: OpenedLedger, metrics: ProjectorMetrics) =>
        new ProjectionService(ledger.writer, logger, metrics, new AfterSettlementProjection(logger, config.accessPolicies)),
    },
  ],
})
export class LedgerProjectorModule {}
