import { Controller, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { loadVerifierConfig, type VerifierConfig } from '@settle/config';
import type { ProviderName } from '@settle/domain';
import type { BatchItem } from '@settle/messaging';
import { canList, loadWithProviderEnv, ProviderMetrics, type TransactionLister } from '@settle/providers';
import {
  CredentialsVault,
  loadMasterKeyRing,
  loadPrivacyKeyRing,
  openSubjectKeys,
  PostgresVaultStore,
  privacyVaultConfigured,
  privacyVaultMigrations,
  vaultMigrations,
} from '@settle/vault';
import { ConsumeBatches, WORKER_CONTEXT, WorkerModule, type WorkerContext } from '@settle/runtime';
import { MaskingOnlyCustomerDataSealer, SubjectKeysCustomerDataSealer, type CustomerDataSealer } from './customer-data-sealer.js';
import { buildProviders, type ClosableProvider } from './providers.js';
import { ReconciliationMetrics } from './reconciliation/reconciliation.metrics.js';
import { ReconciliationService } from './reconciliation/reconciliation.service.js';
import { VERIFIER_MIGRATIONS } from './schema.js';
import { TransactionRepository } from './transaction.repository.js';
import { PostgresVerificationStore } from './verification-store.postgres.js';
import { VerificationService } from './verification.service.js';
import { VerifierMetrics } from './verifier.metrics.js';

type VerifierContext = WorkerContext<VerifierConfig, 'verifier'>;

/** Token of the provider adapters, by provider (built from the vault's credentials at boot). */
const PROVIDERS = Symbol('PROVIDERS');

/** Token of the {@link CustomerDataSealer} (over the privacy vault when it is configured). */
const CUSTOMER_SEALER = Symbol('CUSTOMER_SEALER');

/**
 * Whether this process holds the privacy vault's master keys (`SETTLE_PRIVACY_VAULT_MASTER_KEYS`
 * or `SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE`, docs/privacy.md, "Crypto-shredding"): read once, at
 * boot, for the migrations and the sealer alike.
 */
const SEALS = privacyVaultConfigured(process.env);

/**
 * The verifier's consumer loop: every batch of the transaction-events stream to the
 * {@link VerificationService}, one read and one commit per fetch, not per partition (references
 * are independent: `groupCommitAcrossPartitions`). Closes the provider clients at shutdown, once
 * the loop stopped.
 */
@Controller()
export class VerificationController implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly service: VerificationService,
    private readonly reconciliation: ReconciliationService,
    @Inject(PROVIDERS) private readonly providers: Map<ProviderName, ClosableProvider>,
  ) {}

  /**
   * Reconciliation's requests (runs asked for, exceptions resolved by an operator) first, then
   * everything else to the verification service, which ignores those two types.
   *
   * @returns the batch's items that can never be processed, for the dead-letter topic.
   */
  @ConsumeBatches('verifications', { topics: ['transactionEvents'], groupCommitAcrossPartitions: true })
  async handle(batch: readonly BatchItem[]): ReturnType<VerificationService['handleBatch']> {
    const failed = await this.reconciliation.handleRequests(batch);
    return [...failed, ...(await this.service.handleBatch(batch))];
  }

  onApplicationBootstrap(): void {
    this.reconciliation.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reconciliation.stop();
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
      // The privacy vault (the customers' subject keys) only when its master keys are given.
      migrations: [VERIFIER_MIGRATIONS, vaultMigrations(), ...(SEALS ? privacyVaultMigrations() : [])],
      produces: [
        'ConsensusResult',
        'MoneyMovementsObserved',
        'UnmatchedPaymentObserved',
        'ReconciliationRunRecorded',
        'ReconciliationExceptionObserved',
        'VerificationRequested',
      ],
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
      provide: CUSTOMER_SEALER,
      inject: [WORKER_CONTEXT],
      useFactory: async ({ pool, logger }: VerifierContext): Promise<CustomerDataSealer> => {
        // Unmatched payments' payer email and phone leave the verifier sealed under the customer's
        // subject key (docs/privacy.md, "Crypto-shredding"), or masked only: never in plaintext.
        if (!SEALS) {
          logger.warn(
            { alert: 'SETTLE_PRIVACY_VAULT_MISSING' },
            'no privacy vault master keys (SETTLE_PRIVACY_VAULT_MASTER_KEYS or SETTLE_PRIVACY_VAULT_MASTER_KEY_FILE): unmatched payments record the payer only masked, nothing sealed',
          );
          return new MaskingOnlyCustomerDataSealer();
        }
        const keys = await openSubjectKeys(pool, loadPrivacyKeyRing(), { logger });
        logger.info({}, "privacy vault ready: unmatched payments' payer email and phone are sealed under the customer's key");
        return new SubjectKeysCustomerDataSealer(keys);
      },
    },
    {
      provide: VerificationService,
      inject: [WORKER_CONTEXT, PROVIDERS, ReconciliationService, CUSTOMER_SEALER],
      useFactory: (
        { config, pool, logger, metrics, outboxes }: VerifierContext,
        providers: Map<ProviderName, ClosableProvider>,
        reconciliation: ReconciliationService,
        sealer: CustomerDataSealer,
      ) => {
        const { outbox, relay } = outboxes.verifier;
        const store = new PostgresVerificationStore(pool, new TransactionRepository(pool), outbox);
        return new VerificationService(store, providers, relay, logger, new VerifierMetrics(metrics), {
          keyConcurrency: config.keyConcurrency,
          onSettled: (references) => reconciliation.flagDuplicates(references),
          sealer,
        });
      },
    },
    {
      provide: ReconciliationService,
      inject: [WORKER_CONTEXT, PROVIDERS],
      useFactory: ({ config, pool, logger, metrics, outboxes }: VerifierContext, providers: Map<ProviderName, ClosableProvider>) => {
        const { outbox, relay } = outboxes.verifier;
        const listers = new Map<ProviderName, TransactionLister>();
        for (const [name, provider] of providers) if (canList(provider)) listers.set(name, provider);
        const { scope, ...settings } = config.reconciliation;
        const markers = Object.fromEntries(Object.entries(scope).filter(([name]) => listers.has(name as ProviderName)));
        logger.info({ providers: [...listers.keys()], scheduled: settings.enabled }, 'reconciliation ready');
        return new ReconciliationService(pool, listers, outbox, relay, logger.child({ component: 'reconciliation' }), new ReconciliationMetrics(metrics), {
          ...settings,
          scope: markers,
        });
      },
    },
  ],
})
export class VerifierModule {}
