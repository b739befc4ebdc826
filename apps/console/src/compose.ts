import { SubjectErasure, type LedgerStore } from '@settle/ledger';
import type { SubjectKeys } from '@settle/vault';
import { PRIVACY_ERASE, PrivacyErase } from './privacy/privacy-erase.js';
import { ApprovalService } from './approvals/approval.service.js';
import type { ProposalStore } from './approvals/proposal-store.port.js';
import { UnmatchedPaymentMatch } from './unmatched/unmatched-payment-match.js';
import { UnmatchedPaymentCloser } from './unmatched/unmatched-payment-closer.js';
import { MismatchRefundDueCloser, StateMismatchAcceptAsPaid } from './mismatch/mismatch-resolution.js';
import type { ProposalAction } from './approvals/proposal-action.js';
import type { IngestionAdminOptions } from './reconcile/ingestion-admin.js';
import type { Logger, Pool } from '@settle/platform';
import { LedgerAuditTrail, type AuditLog } from './audit/ledger-audit-trail.js';
import type { AuthStore } from './auth/auth-store.port.js';
import { AuthService } from './auth/auth.service.js';
import type { ConsoleApiDeps } from './http/console-api.module.js';
import { ReviewQueues } from './queues/review-queues.js';
import { TransactionRepository } from './transactions/transaction.repository.js';
import { UserAdminService } from './users/user-admin.service.js';
import { ReconciliationAdmin } from './reconciliation/reconciliation-admin.js';

/** The adapters the console's services are built on, one per port. */
export interface ConsoleAdapters {
  /** PostgreSQL, where the console reads the views the other apps publish (an inert pool for the OpenAPI generator). */
  pool: Pool;
  /** The ledger: transactions' timelines, and where admin actions are appended. */
  ledger: LedgerStore;
  /**
   * Where the audit view reads the admin actions back: `PostgresAuditLog` (a PostgreSQL ledger),
   * `ProjectedAuditLog` (KurrentDB: the `AuditProjection`'s read model), or `StoreScanAuditLog`
   * over an in-memory ledger.
   */
  auditLog: AuditLog;
  /** Console users, sessions and sign-in failures. */
  authStore: AuthStore;
  logger: Logger;
  /** How long a session lasts without use, milliseconds (`CONSOLE_SESSION_TTL_MS`). */
  sessionTtlMs: number;
  /** Proposals of sensitive actions (`PostgresProposalStore`, or `MemoryProposalStore` in tests). */
  proposals: ProposalStore;
  /** Ingestion's admin API, where approved matches of unmatched payments run, and reconciliation runs start and exceptions are resolved. */
  ingestion: IngestionAdminOptions;
  /** How long a proposal waits for its approval, milliseconds (`CONSOLE_PROPOSAL_TTL_MS`); default 24 h. */
  proposalTtlMs?: number;
  /**
   * The privacy vault's subjects' keys (`openSubjectKeys`, docs/privacy.md), which seal the
   * persons named in proposals and are destroyed by an approved erasure; `null` (or left out)
   * when the console has none: `privacy.erase` and matches naming a customer then answer 503
   * `CONSOLE.PRIVACY_VAULT_MISSING`.
   */
  subjectKeys?: SubjectKeys | null;
}

/**
 * The console's services over the given adapters: the one composition that `main.ts` (PostgreSQL
 * adapters and the ledger `LEDGER_STORE` names), the OpenAPI generator (inert and in-memory ones) and the tests' factory share, so
 * that a service added to the console is wired in one place.
 */
export function composeConsole(
  adapters: ConsoleAdapters,
): Pick<ConsoleApiDeps, 'auth' | 'users' | 'audit' | 'transactions' | 'queues' | 'approvals' | 'unmatchedCloser' | 'refundDueCloser' | 'reconciliationAdmin'> {
  const { pool, ledger, auditLog, authStore, logger, sessionTtlMs } = adapters;
  const audit = new LedgerAuditTrail(ledger, auditLog, logger);
  const transactions = new TransactionRepository(pool, ledger);
  const keys = adapters.subjectKeys ?? null;
  return {
    auth: new AuthService(authStore, { sessionTtlMs }),
    users: new UserAdminService(authStore, audit),
    audit,
    transactions,
    queues: new ReviewQueues(pool, transactions),
    approvals: new ApprovalService(
      adapters.proposals,
      audit,
      new Map<string, ProposalAction>([
        ['unmatched_payment.match', new UnmatchedPaymentMatch(pool, adapters.ingestion, keys)],
        ['state_mismatch.accept_as_paid', new StateMismatchAcceptAsPaid(pool, adapters.ingestion)],
        [PRIVACY_ERASE, new PrivacyErase(keys && { keys, erasure: new SubjectErasure(pool, ledger, keys) }, adapters.proposals)],
      ]),
      { ttlMs: adapters.proposalTtlMs },
    ),
    unmatchedCloser: new UnmatchedPaymentCloser(adapters.ingestion),
    refundDueCloser: new MismatchRefundDueCloser(pool, adapters.ingestion),
    reconciliationAdmin: new ReconciliationAdmin(adapters.ingestion),
  };
}
