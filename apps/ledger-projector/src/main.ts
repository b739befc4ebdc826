import { loadProjectorConfig } from '@settle/config';
import { LEDGER_DDL, PostgresLedger, READ_MODEL_DDL } from '@settle/ledger';
import { outboxDdl } from '@settle/messaging';
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
  migrations: [
    { owner: 'ledger', statements: [...LEDGER_DDL, ...outboxDdl('ledger')] },
    { owner: 'read_model', statements: READ_MODEL_DDL },
  ],
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
