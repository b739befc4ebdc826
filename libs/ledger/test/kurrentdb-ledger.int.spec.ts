/**
 * The ledger contract against EventStoreDB/KurrentDB. It needs a server these machines cannot
 * run (no Docker engine); with docker compose, `docker compose up kurrentdb` and
 * KURRENTDB_CONNECTION_STRING=kurrentdb://127.0.0.1:2113?tls=false run it. Without a
 * connection string the suite is skipped, and says so.
 */
import { afterAll, describe, it } from 'vitest';
import { EventStoreLedgerWriter, KurrentDbLedger } from '@settle/ledger';
import { ledgerContract } from './ledger.contract.js';
import { ledgerWriterContract } from './ledger-writer.contract.js';

const connectionString = process.env.KURRENTDB_CONNECTION_STRING?.trim();

if (connectionString) {
  const stores: KurrentDbLedger[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });
  ledgerContract(
    'KurrentDB',
    () => {
      const store = new KurrentDbLedger(connectionString);
      stores.push(store);
      return store;
    },
    // The server keeps no global chain and de-duplicates event ids within a stream only (docs/ledger.md).
    { globalChain: false, uniqueEventIds: false },
  );
  ledgerWriterContract(
    'KurrentDB',
    () => {
      const store = new KurrentDbLedger(connectionString);
      stores.push(store);
      return new EventStoreLedgerWriter(store, async () => undefined);
    },
    { uniqueEventIds: false },
  );
} else {
  const reason =
    'KURRENTDB_CONNECTION_STRING is not set: no EventStoreDB/KurrentDB server is configured on this machine (it needs Docker; see docker-compose.yml)';
  console.warn(`[ledger contract: KurrentDB] skipped: ${reason}`);
  describe('ledger contract: KurrentDB', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
  describe('ledger writer contract: KurrentDB', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
}
