/**
 * The console's test factory: its API over PostgreSQL, every port on its real adapter (the
 * PostgreSQL ledger and audit log, the transactions' and the review queues' readers, user
 * administration), built as `createConsoleApp` builds it for `main.ts`, with only what a test
 * needs to differ passed in. Each integration test used to wire the same ten dependencies by hand.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret } from '@settle/config';
import { PostgresLedger } from '@settle/ledger';
import { generateKey, InMemorySubjectKeyStore, MasterKeyRing, SubjectKeys } from '@settle/vault';
import type { Pool } from '@settle/platform';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { pino } from 'pino';
import type { AnswerConformance } from '@settle/testing';
import { PostgresAuditLog } from '../src/audit/postgres-audit-log.js';
import { PostgresAuthStore } from '../src/auth/postgres-auth-store.js';
import { createConsoleApp } from '../src/console-app.js';
import type { ConsoleApiDeps } from '../src/http/console-api.module.js';
import { ReviewQueues } from '../src/queues/review-queues.js';
import { IngestionReconciler } from '../src/reconcile/ingestion-reconciler.js';
import { composeConsole } from '../src/compose.js';
import { PostgresProposalStore } from '../src/approvals/proposal-store.postgres.js';
import type { IngestionAdminOptions } from '../src/reconcile/ingestion-admin.js';

/** Ingestion's admin API at a port nothing listens on: reconciliations and approved matches answer 503 unless a test passes its own. */
const UNREACHABLE_INGESTION: IngestionAdminOptions = { baseUrl: 'http://127.0.0.1:9', adminApiKey: new Secret('unused-admin-key') };
import { watchAnswers } from './answer-conformance.js';

/** A privacy vault in memory (a fresh master key and index key): what the console seals and erases with unless a test passes its own. */
export function inMemorySubjectKeys(): SubjectKeys {
  return new SubjectKeys(new InMemorySubjectKeyStore(), MasterKeyRing.from([['v1', generateKey()]]), generateKey());
}

/** What `createConsoleApp` takes. */
export type ConsoleAppDeps = Parameters<typeof createConsoleApp>[0];

/**
 * The console's dependencies over `pool`, each on its real adapter, with `overrides` in their
 * place. Defaults: a silent logger; sessions of an hour; the ledger, its audit log, the readers
 * and the proposals on PostgreSQL; ingestion's admin API (reconciliations, approved matches) at
 * `ingestion`, by default a port nothing listens on (they answer 503); no dispatcher; insecure
 * cookies; no web app built; the privacy vault `subjectKeys`, by default in memory
 * ({@link inMemorySubjectKeys}; `null`: none).
 */
export function consoleTestDeps(
  pool: Pool,
  overrides: Partial<ConsoleAppDeps> = {},
  ingestion: IngestionAdminOptions = UNREACHABLE_INGESTION,
  subjectKeys: SubjectKeys | null = inMemorySubjectKeys(),
): ConsoleAppDeps {
  const logger = overrides.logger ?? pino({ level: 'silent' });
  const ledger = new PostgresLedger(pool);
  const services = composeConsole({
    pool,
    ledger,
    auditLog: new PostgresAuditLog(pool),
    authStore: new PostgresAuthStore(pool),
    logger,
    sessionTtlMs: 3_600_000,
    proposals: new PostgresProposalStore(pool),
    ingestion,
    subjectKeys,
  });
  // A test's own transactions' reader also feeds the review queues, as in main.ts.
  const queues = overrides.transactions ? new ReviewQueues(pool, overrides.transactions) : services.queues;
  return {
    logger,
    pool,
    ...services,
    queues,
    reconciler: new IngestionReconciler(ingestion),
    cookies: { secure: false },
    webDir: join(tmpdir(), `missing-${randomUUID()}`),
    ...overrides,
  } satisfies Omit<ConsoleApiDeps, 'webBuilt' | 'metrics'> & { webDir: string };
}

/**
 * The console's API over `pool` ({@link consoleTestDeps}), initialised and ready for
 * `app.inject`; with `answers`, every successful answer is also checked against the OpenAPI
 * document (`watchAnswers`, attached before the app is ready). The caller closes it.
 */
export async function startConsoleTestApp(
  pool: Pool,
  overrides: Partial<ConsoleAppDeps> = {},
  ingestion: IngestionAdminOptions = UNREACHABLE_INGESTION,
  subjectKeys: SubjectKeys | null = inMemorySubjectKeys(),
): Promise<{ app: NestFastifyApplication; answers: AnswerConformance }> {
  const app = await createConsoleApp(consoleTestDeps(pool, overrides, ingestion, subjectKeys));
  const answers = watchAnswers(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, answers };
}
