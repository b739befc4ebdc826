import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HealthModule, ProblemDetailsFilter } from '@settle/http';
import { HealthProbes, postgresProbe, type Logger, type Pool } from '@settle/platform';
import type { Registry } from 'prom-client';
import type { AuthService } from '../auth/auth.service.js';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import { DeliveriesService } from '../deliveries/deliveries.service.js';
import type { DeliveryAdmin } from '../deliveries/delivery-admin.port.js';
import type { Reconciler } from '../reconcile/reconciler.port.js';
import { PostgresVerificationLog } from '../ledger-chains/postgres-verification-log.js';
import { KafkaOverview } from '../overview/kafka-overview.js';
import { OverviewService } from '../overview/overview.service.js';
import type { ReviewQueues } from '../queues/review-queues.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { UserAdminService } from '../users/user-admin.service.js';
import type { ApprovalService } from '../approvals/approval.service.js';
import { ApprovalsController } from './approvals.controller.js';
import { PrivacyController } from './privacy.controller.js';
import { UnmatchedPaymentsController } from './unmatched-payments.controller.js';
import type { UnmatchedPaymentCloser } from '../unmatched/unmatched-payment-closer.js';
import type { MismatchRefundDueCloser } from '../mismatch/mismatch-resolution.js';
import { StateMismatchController } from './state-mismatch.controller.js';
import { AuditController } from './audit.controller.js';
import { DeliveriesController } from './deliveries.controller.js';
import { OverviewController } from './overview.controller.js';
import { QueuesController } from './queues.controller.js';
import { ReconciliationAdmin } from '../reconciliation/reconciliation-admin.js';
import { ReconciliationReader } from '../reconciliation/reconciliation-reader.js';
import { ReconciliationController } from './reconciliation.controller.js';
import { SessionController } from './session.controller.js';
import { SessionGuard } from './session.guard.js';
import { TransactionsController } from './transactions.controller.js';
import { UsersController } from './users.controller.js';
import {
  APPROVALS,
  UNMATCHED_CLOSER,
  REFUND_DUE_CLOSER,
  AUDIT_TRAIL,
  AUTH_SERVICE,
  CONSOLE_CHALLENGE,
  CONSOLE_LOGGER,
  COOKIE_SETTINGS,
  DELIVERIES,
  OVERVIEW,
  RECONCILER,
  TRANSACTIONS,
  QUEUES,
  USER_ADMIN,
  WEB_BUILT,
  type CookieSettings,
} from './tokens.js';
import { WebController } from './web.controller.js';

/** The console's controllers (the OpenAPI document reads their problem codes). */
export const CONSOLE_CONTROLLERS = [
  SessionController,
  TransactionsController,
  QueuesController,
  OverviewController,
  DeliveriesController,
  ReconciliationController,
  AuditController,
  UsersController,
  ApprovalsController,
  PrivacyController,
  UnmatchedPaymentsController,
  StateMismatchController,
  WebController,
] as const;

/** What the console's API is built on. */
export interface ConsoleApiDeps {
  logger: Logger;
  pool: Pool;
  auth: AuthService;
  transactions: TransactionRepository;
  /** The review queues' reader. */
  queues: ReviewQueues;
  reconciler: Reconciler;
  /**
   * The dispatcher's admin API for the Deliveries pages; `null` (or left out) when none is
   * configured: those routes then answer 503 `CONSOLE.DELIVERY_NOT_CONFIGURED`.
   */
  deliveryAdmin?: DeliveryAdmin | null;
  /** Starts reconciliation runs and resolves their exceptions, through ingestion's admin API. */
  reconciliationAdmin: ReconciliationAdmin;
  /** Where every admin action is recorded, with its actor, before it runs (the ledger). */
  audit: AuditTrail;
  /** User management (admin only), its changes through `audit`. */
  users: UserAdminService;
  /** Proposals of sensitive actions and their approval by a second admin (docs/approvals.md), through `audit`. */
  approvals: ApprovalService;
  /** Closes unmatched payments with a reason, through ingestion's admin API. */
  unmatchedCloser: UnmatchedPaymentCloser;
  /** Closes State Mismatches as to be refunded, through ingestion's admin API. */
  refundDueCloser: MismatchRefundDueCloser;
  cookies: CookieSettings;
  /** Whether the web app's files are served at `/` (and `index.html` for its routes); when not, they answer 503 `CONSOLE.WEB_NOT_BUILT`. */
  webBuilt: boolean;
  /** Prometheus registry of `GET /metrics` (`createConsoleApp` passes one, with the default process metrics). */
  metrics: Registry;
  /**
   * Readiness (`GET /health/ready`); default PostgreSQL through `pool` alone. The boot adds
   * Kafka, degraded only (the overview's figures are all it reads there), when configured.
   */
  health?: HealthProbes;
  /**
   * The Overview's reads; default: the counts, the dead-lettered deliveries and the ledger
   * verification's records of `pool`, Kafka not configured.
   */
  overview?: OverviewService;
}

/** The console's HTTP side: session, overview, transactions, review queues, reconciliation (manual and against the providers' books), deliveries, audit, users, health and metrics (docs/console.md). */
@Module({})
export class ConsoleApiModule {
  static forRoot(deps: ConsoleApiDeps): DynamicModule {
    return {
      module: ConsoleApiModule,
      imports: [
        HealthModule.forRoot({
          probes: deps.health ?? new HealthProbes(() => [postgresProbe(deps.pool)], deps.logger),
          metrics: deps.metrics,
        }),
      ],
      controllers: [...CONSOLE_CONTROLLERS],
      providers: [
        { provide: AUTH_SERVICE, useValue: deps.auth },
        { provide: TRANSACTIONS, useValue: deps.transactions },
        { provide: QUEUES, useValue: deps.queues },
        { provide: RECONCILER, useValue: deps.reconciler },
        { provide: DELIVERIES, useValue: new DeliveriesService(deps.deliveryAdmin ?? null) },
        { provide: ReconciliationReader, useValue: new ReconciliationReader(deps.pool) },
        { provide: ReconciliationAdmin, useValue: deps.reconciliationAdmin },
        {
          provide: OVERVIEW,
          useValue:
            deps.overview ??
            new OverviewService(deps.transactions, deps.pool, new KafkaOverview(null, deps.logger), {
              store: 'postgres',
              log: new PostgresVerificationLog(deps.pool),
            }),
        },
        { provide: AUDIT_TRAIL, useValue: deps.audit },
        { provide: USER_ADMIN, useValue: deps.users },
        { provide: APPROVALS, useValue: deps.approvals },
        { provide: UNMATCHED_CLOSER, useValue: deps.unmatchedCloser },
        { provide: REFUND_DUE_CLOSER, useValue: deps.refundDueCloser },
        { provide: COOKIE_SETTINGS, useValue: deps.cookies },
        { provide: CONSOLE_LOGGER, useValue: deps.logger },
        { provide: WEB_BUILT, useValue: deps.webBuilt },
        { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(deps.logger, CONSOLE_CHALLENGE) },
        SessionGuard,
      ],
    };
  }
}
