/**
 * The audit view as it runs under `LEDGER_STORE=kurrentdb`, for the tests: an `AuditProjection`
 * following a ledger store into the console's read model, read back by `ProjectedAuditLog`. The
 * projection is eventually consistent; the log handed to the `AuditTrail` contract first waits
 * until the projection has committed every admin-action event the store holds, so the contract
 * asks the same questions of it as of `PostgresAuditLog`, which reads the ledger itself.
 */
import { ADMIN_STREAM_CATEGORY, type LedgerStore, type RecordedLedgerEvent } from '@settle/ledger';
import type { Pool } from '@settle/platform';
import { pino } from 'pino';
import { AuditProjection } from '../src/audit/audit-projection.js';
import type { AuditLog } from '../src/audit/ledger-audit-trail.js';
import { ProjectedAuditLog } from '../src/audit/projected-audit-log.js';

/** A running projection over a store, and the logs that read its table. */
export interface ProjectedAudit {
  projection: AuditProjection;
  /** The table as it is now. */
  log: ProjectedAuditLog;
  /** The table once the projection caught up with the store (see {@link caughtUp}). */
  caughtUpLog: AuditLog;
  /** Resolves once the projection has committed the store's last admin-action event. */
  caughtUp(): Promise<void>;
}

/**
 * Starts an {@link AuditProjection} over `store` into the `console` schema behind `pool` (console
 * migrations applied); the caller stops it (`projection.stop()`).
 */
export function startProjectedAudit(store: LedgerStore, pool: Pool): ProjectedAudit {
  const projection = new AuditProjection(store, pool, pino({ level: 'silent' }), { pollIntervalMs: 10, retryDelayMs: 50 });
  projection.start();
  const log = new ProjectedAuditLog(pool);
  const caughtUp = () => waitForProjection(store, projection);
  return {
    projection,
    log,
    caughtUp,
    caughtUpLog: {
      list: async (query) => {
        await caughtUp();
        return log.list(query);
      },
    },
  };
}

/**
 * Waits until `projection`'s checkpoint reaches the last admin-action event of `store`.
 *
 * @throws Error after `timeoutMs` milliseconds (default 10 000) without it.
 */
export async function waitForProjection(store: Pick<LedgerStore, 'readAll'>, projection: AuditProjection, timeoutMs = 10_000): Promise<void> {
  let target = 0;
  for (
    let after = await projection.checkpoint(), page: RecordedLedgerEvent[];
    (page = await store.readAll(after, 1_000)).length > 0;
    after = page.at(-1)!.position
  ) {
    for (const event of page) if (event.streamId.startsWith(`${ADMIN_STREAM_CATEGORY}-`)) target = event.position;
  }
  const deadline = Date.now() + timeoutMs;
  while ((await projection.checkpoint()) < target) {
    if (Date.now() > deadline) throw new Error(`the audit projection did not reach position ${target} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
