import { DEFAULT_HEALTH_CACHE_MS, DEFAULT_HEALTH_TIMEOUT_MS, type HealthProbe } from '@settle/platform';
import type { OpenedLedgerStore } from './open-ledger-store.js';

/**
 * The ledger's event store answering reads (key `event_store`): the first event of the global
 * log (`readAll(0, 1)`, one indexed row on PostgreSQL, one read of `$all` on KurrentDB), bounded
 * by `timeoutMs` and reused for `cacheMs`; `down` when it fails. Reports the store's kind. On
 * PostgreSQL it also proves the `ledger` schema is readable, beyond the pool's `SELECT 1`.
 */
export function eventStoreProbe(opened: OpenedLedgerStore, options: { timeoutMs?: number; cacheMs?: number } = {}): HealthProbe {
  return {
    key: 'event_store',
    whenFailing: 'down',
    timeoutMs: options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    cacheMs: options.cacheMs ?? DEFAULT_HEALTH_CACHE_MS,
    check: async () => {
      await opened.store.readAll(0, 1);
      return { store: opened.kind };
    },
  };
}
