import { loadProjectorConfig } from '@settle/config';
import { LEDGER_MIGRATIONS, PostgresLedger, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { defineWorker, runWorker } from '@settle/worker';
import { ProjectionService } from './projection.service.js';

/**
 * The ledger projector: consumes consensus results, appends outcomes to the immutable
 * ledger (and the entitlement grants they cause), keeps the read models, and publishes
 * settlement and entitlement events through its outbox.
 */
const ledgerProjector = defineWorker({
  name: 'ledger-projector',
  config: loadProjectorConfig,
  // The projector owns both schemas: `ledger` (with its outbox) and `read_model`, which
  // ingestion reads (docs/postgres.md).
  migrations: [LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS],
  produces: ['SettlementRecorded', 'EntitlementGranted'],
  outboxes: [{ schema: 'ledger' }],
  setup: ({ pool, topics, logger, outboxes }) => {
    const { outbox, relay } = outboxes.ledger;
    const service = new ProjectionService(pool, new PostgresLedger(pool), outbox, relay, logger);
    return {
      consumers: [
        {
          topics: [topics.consensusResults],
          handleBatch: (items) => service.handleBatch(items),
          // One transaction (one lock of the ledger head) per fetch, not per partition.
          groupCommitAcrossPartitions: true,
        },
      ],
    };
  },
});

runWorker(ledgerProjector);
