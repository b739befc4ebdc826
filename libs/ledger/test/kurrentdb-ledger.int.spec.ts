/**
 * The ledger contract against EventStoreDB/KurrentDB. It runs against the server
 * KURRENTDB_CONNECTION_STRING names (with docker compose, `docker compose up kurrentdb` and
 * KURRENTDB_CONNECTION_STRING=kurrentdb://127.0.0.1:2113?tls=false), else, where a Docker engine
 * is reachable, against a KurrentDB container it starts itself (`kurrentDbForTests`). These
 * machines have neither (no Docker engine): the suite is skipped, and says so.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EventStoreLedgerWriter, KurrentDbLedger } from '@settle/ledger';
import { KURRENTDB_START_TIMEOUT_MS, kurrentDbForTests, type RunningKurrentDb } from '@settle/testing';
import { ledgerContract } from './ledger.contract.js';
import { ledgerWriterContract } from './ledger-writer.contract.js';

const kurrentdb = await kurrentDbForTests();

if (typeof kurrentdb !== 'string') {
  let server: RunningKurrentDb;
  const stores: KurrentDbLedger[] = [];
  beforeAll(async () => {
    server = await kurrentdb.start();
  }, KURRENTDB_START_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });
  ledgerContract(
    'KurrentDB',
    () => {
      const store = new KurrentDbLedger(server.connectionString);
      stores.push(store);
      return store;
    },
    // The server keeps no global chain and de-duplicates event ids within a stream only (docs/ledger.md).
    { globalChain: false, uniqueEventIds: false },
  );
  ledgerWriterContract(
    'KurrentDB',
    () => {
      const store = new KurrentDbLedger(server.connectionString);
      stores.push(store);
      return new EventStoreLedgerWriter(store, async () => undefined);
    },
    { uniqueEventIds: false },
  );
} else {
  const reason = kurrentdb;
  console.warn(`[ledger contract: KurrentDB] skipped: ${reason}`);
  describe('ledger contract: KurrentDB', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
  describe('ledger writer contract: KurrentDB', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
}
