import 'reflect-metadata';
import { loadVerifierConfig } from '@settle/config';
import { loadWithProviderEnv, ProviderMetrics } from '@settle/providers';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { defineWorker, runWorker } from '@settle/worker';
import { buildProviders } from './providers.js';
import { VERIFIER_MIGRATIONS } from './schema.js';
import { TransactionRepository } from './transaction.repository.js';
import { PostgresVerificationStore } from './verification-store.postgres.js';
import { VerificationService } from './verification.service.js';
import { VerifierMetrics } from './verifier.metrics.js';

/**
 * The verifier: consumes the transaction-events stream as a member of its consumer group,
 * queries providers, and publishes consensus results through its outbox.
 */
const verifier = defineWorker({
  name: 'verifier',
  // The app's variables and every provider's (the registry's), checked together.
  config: () => loadWithProviderEnv('verifier', loadVerifierConfig),
  migrations: [VERIFIER_MIGRATIONS, vaultMigrations()],
  produces: ['ConsensusResult'],
  outboxes: [{ schema: 'verifier' }],
  setup: async ({ config, pool, topics, logger, metrics: registry, outboxes }) => {
    // The verifier's master keys are the only ones that open the provider credentials' vault
    // (ingestion and the dispatcher hold keys of their own, for their own vaults).
    const vault = new CredentialsVault(new PostgresVaultStore(pool), loadMasterKeyRing(), { logger });
    const providers = await buildProviders(config, vault, process.env, new ProviderMetrics(registry));
    logger.info({ providers: [...providers.keys()], account: config.merchantAccount }, 'provider adapters ready');
    const metrics = new VerifierMetrics(registry);
    const { outbox, relay } = outboxes.verifier;
    const store = new PostgresVerificationStore(pool, new TransactionRepository(pool), outbox);
    const service = new VerificationService(store, providers, relay, logger, metrics, {
      keyConcurrency: config.keyConcurrency,
    });
    return {
      consumers: [
        {
          topics: [topics.transactionEvents],
          handleBatch: (items) => service.handleBatch(items),
          // One read and one commit per fetch, not per partition (references are independent).
          groupCommitAcrossPartitions: true,
        },
      ],
      stop: async () => {
        await Promise.all([...providers.values()].map((provider) => provider.close()));
      },
    };
  },
});

runWorker(verifier);
