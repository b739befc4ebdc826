import type { LedgerStoreConfig } from '@settle/config';
import type { Pool } from '@settle/platform';
import { KurrentDbLedger } from './event-store/kurrentdb-ledger.js';
import { PostgresLedger } from './postgres/postgres-ledger.js';

/** A ledger store opened from configuration, tagged by kind (what each can do differs: docs/ledger.md). */
export type OpenedLedgerStore =
  { kind: 'postgres'; store: PostgresLedger; close(): Promise<void> } | { kind: 'kurrentdb'; store: KurrentDbLedger; close(): Promise<void> };

/**
 * Opens the ledger store `LEDGER_STORE` names: PostgreSQL (the `ledger` schema behind `pool`,
 * which the caller keeps and closes) or EventStoreDB/KurrentDB (its own gRPC channel, closed by
 * `close`). The projector, `./settle ledger` and the read-model rebuild all open it here.
 */
export function openLedgerStore(config: LedgerStoreConfig, pool: Pool): OpenedLedgerStore {
  if (config.kind === 'kurrentdb') {
    const store = new KurrentDbLedger(config.connectionString.reveal());
    return { kind: 'kurrentdb', store, close: () => store.close() };
  }
  return { kind: 'postgres', store: new PostgresLedger(pool), close: async () => undefined };
}
