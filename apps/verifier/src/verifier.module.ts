import { Controller, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { loadVerifierConfig, type VerifierConfig } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import type { BatchItem } from '@settle/messaging';
import { loadWithProviderEnv, ProviderMetrics } from '@settle/providers';
import { CredentialsVault, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { ConsumeBatches, WORKER_CONTEXT, WorkerModule, type WorkerContext } from '@settle/runtime';
import { buildProviders, type ClosableProvider } from './providers.js';
import { VERIFIER_MIGRATIONS } from './schema.js';
import { TransactionRepository } from './transaction.repository.js';
import { PostgresVerificationStore } from './verification-store.postgres.js';
import { VerificationService } from './verification.service.js';
import { VerifierMetrics } from './verifier.metrics.js';

type VerifierContext = WorkerContext<VerifierConfig, 'verifier'>;

/** Token of the provider adapters, by provider (built from the vault's credentials at boot). */
const PROVIDERS = Symbol('PROVIDERS');

/**
 * The verifier's consumer loop: every batch of the transaction-events stream to the
 * {@link VerificationService}, one read and one commit per fetch, not per partition (references
 * are independent: `groupCommitAcrossPartitions`). Closes the provider clients at shutdown, once
 * the loop stopped.
 */
@Controller()
export class VerificationController implements OnApplicationShutdown {
  constructor(
    private readonly service: VerificationService,
    @Inject(PROVIDERS) private readonly providers: Map<ProviderName, ClosableProvider>,
  ) {}

  /** @returns the batch's items that can never be processed, for the dead-letter topic. */
  @ConsumeBatches('verifications', { topics: ['transactionEvents'], groupCommitAcrossPartitions: true })
  handle(batch: readonly BatchItem[]): ReturnType<VerificationService['handleBatch']> {
    return this.service.handleBatch(batch);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.providers.values()].map((provider) => provider.close()));
  }
}

/**
 * The verifier: consumes the transaction-events stream as a member of its consumer group,
 * queries providers, and publishes consensus results through its outbox.
 */
@Module({
  imports: [
    WorkerModule.forRoot({
      name: 'verifier',
      // The app's variables and every provider's (the registry's), checked together.
      config: () => loadWithProviderEnv('verifier', loadVerifierConfig),
      migrations: [VERIFIER_MIGRATIONS, vaultMigrations()],
      produces: ['ConsensusResult', 'UnmatchedPaymentObserved'],
      outboxes: [{ schema: 'verifier' }],
    }),
  ],
  controllers: [VerificationController],
  providers: [
    {
      provide: PROVIDERS,
      inject: [WORKER_CONTEXT],
      useFactory: async ({ config, pool, logger, metrics }: VerifierContext) => {
        // The provider credentials' vault opens with the verifier's own master keys (ingestion and
        // the dispatcher hold keys of their own, for their own vaults).
        const vault = new CredentialsVault(new PostgresVaultStore(pool), loadMasterKeyRing(), { logger });
        const providers = await buildProviders(config, vault, process.env, new ProviderMetrics(metrics));
        logger.info({ providers: [...providers.keys()], account: config.merchantAccount }, 'provider adapters ready');
        return providers;
      },
    },
    {
      provide: VerificationService,
      inject: [WORKER_CONTEXT, PROVIDERS],
      useFactory: ({ config, pool, logger, metrics, outboxes }: VerifierContext, providers: Map<ProviderName, ClosableProvider>) => {
        const { outbox, relay } = outboxes.verifier;
        const store = new PostgresVerificationStore(pool, new TransactionRepository(pool), outbox);
        return new VerificationService(store, providers, relay, logger, new VerifierMetrics(metrics), { keyConcurrency: config.keyConcurrency });
      },
    },
  ],
})
export class VerifierModule {}
