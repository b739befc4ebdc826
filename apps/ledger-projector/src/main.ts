import { loadProjectorConfig } from '@settle/config';
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
import { defineWorker, runWorker, type ConsumerDefinition } from '@settle/worker';
import { ProjectionService } from './projection.service.js';
import { ProjectorMetrics } from './projector.metrics.js';

/**
 * The ledger projector: consumes consensus results, appends outcomes to the immutable
 * ledger (and the entitlement grants they cause), keeps the read models, and publishes
 * settlement and entitlement events through its outbox. `LEDGER_STORE` picks the ledger:
 * PostgreSQL (appends, read models and outbox in one transaction per batch) or KurrentDB
 * (the append is the commit; a checkpointed projection of `$all` keeps the read models and
 * fills the outbox; docs/ledger.md, "One port, two stores").
 */
const ledgerProjector = defineWorker({
  name: 'ledger-projector',
  config: loadProjectorConfig,
  // The projector owns both schemas: `ledger` (its outbox and, on an event store, the projection
  // checkpoints live there whichever store holds the events) and `read_model`, which ingestion
  // reads (docs/postgres.md).
  migrations: [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS],
  produces: ['SettlementRecorded', 'EntitlementGranted'],
  outboxes: [{ schema: 'ledger' }],
  setup: ({ config, pool, topics, logger, metrics: registry, outboxes }) => {
    const { outbox, relay } = outboxes.ledger;
    const metrics = new ProjectorMetrics(registry);
    const opened = openLedgerStore(config.ledgerStore, pool);
    const consumerOf = (writer: LedgerWriter): ConsumerDefinition => {
      const service = new ProjectionService(writer, logger, metrics);
      return {
        topics: [topics.consensusResults],
        handleBatch: (items) => service.handleBatch(items),
        // One session (on PostgreSQL one lock of the ledger head) per fetch, not per partition.
        groupCommitAcrossPartitions: true,
      };
    };
    logger.info({ ledgerStore: opened.kind }, 'ledger store selected');
    // Readiness also reflects the ledger's store (on KurrentDB, its server).
    const health = [eventStoreProbe(opened)];
    if (opened.kind === 'postgres') return { consumers: [consumerOf(new PostgresLedgerWriter(pool, opened.store, outbox, relay))], health };
    const projection = new CheckpointedLedgerProjection(pool, opened.store, outbox, relay, logger.child({ component: 'ledger-projection' }));
    const writer = new EventStoreLedgerWriter(
      opened.store,
      (rows) => upsertLatestVerifications(pool, rows),
      () => projection.wake(),
    );
    return {
      consumers: [consumerOf(writer)],
      health,
      start: () => projection.start(),
      stop: async () => {
        await projection.stop();
        await opened.close();
      },
    };
  },
});

runWorker(ledgerProjector);
