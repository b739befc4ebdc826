import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HEALTH_POOL, HealthController, METRICS_REGISTRY, ProblemDetailsFilter } from '@settle/http';
import type { Logger, Pool } from '@settle/platform';
import { Registry } from 'prom-client';
import type { AuthService } from '../auth/auth.service.js';
import type { AuditTrail } from '../audit/audit-trail.port.js';
import type { Reconciler } from '../reconcile/reconciler.port.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import { QueuesController } from './queues.controller.js';
import { SessionController } from './session.controller.js';
import { SessionGuard } from './session.guard.js';
import { TransactionsController } from './transactions.controller.js';
import {
  AUDIT_TRAIL,
  AUTH_SERVICE,
  CONSOLE_CHALLENGE,
  CONSOLE_LOGGER,
  COOKIE_SETTINGS,
  RECONCILER,
  TRANSACTIONS,
  WEB_BUILT,
  type CookieSettings,
} from './tokens.js';
import { WebController } from './web.controller.js';

/** What the console's API is built on. */
export interface ConsoleApiDeps {
  logger: Logger;
  pool: Pool;
  auth: AuthService;
  transactions: TransactionRepository;
  reconciler: Reconciler;
  /** Where every admin action is recorded, with its actor, before it runs (the ledger). */
  audit: AuditTrail;
  cookies: CookieSettings;
  /** Whether the web app's files are served at `/` (and `index.html` for its routes); when not, they answer 503 `CONSOLE.WEB_NOT_BUILT`. */
  webBuilt: boolean;
  /** Prometheus registry of `GET /metrics`; default an empty one. */
  metrics?: Registry;
}

/** The console's HTTP side: session, transactions, review queues, reconciliation, health and metrics (docs/console.md). */
@Module({})
export class ConsoleApiModule {
  static forRoot(deps: ConsoleApiDeps): DynamicModule {
    return {
      module: ConsoleApiModule,
      controllers: [SessionController, TransactionsController, QueuesController, HealthController, WebController],
      providers: [
        { provide: AUTH_SERVICE, useValue: deps.auth },
        { provide: TRANSACTIONS, useValue: deps.transactions },
        { provide: RECONCILER, useValue: deps.reconciler },
        { provide: AUDIT_TRAIL, useValue: deps.audit },
        { provide: COOKIE_SETTINGS, useValue: deps.cookies },
        { provide: CONSOLE_LOGGER, useValue: deps.logger },
        { provide: WEB_BUILT, useValue: deps.webBuilt },
        { provide: HEALTH_POOL, useValue: deps.pool },
        { provide: METRICS_REGISTRY, useValue: deps.metrics ?? new Registry() },
        { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(deps.logger, CONSOLE_CHALLENGE) },
        SessionGuard,
      ],
    };
  }
}
