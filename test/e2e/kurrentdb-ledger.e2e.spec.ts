/**
 * The whole pipeline with the ledger on EventStoreDB/KurrentDB (LEDGER_STORE=kurrentdb, as
 * docker-compose.yml runs it): a paid checkout settles, its outcome and its grant are appended
 * to the event store, the checkpointed projection fills the read model and publishes the
 * settlement and entitlement events once, and `./settle ledger` replays and verifies the event
 * store. It runs against the server KURRENTDB_CONNECTION_STRING names (with docker compose,
 * `docker compose up -d kurrentdb` and KURRENTDB_CONNECTION_STRING=kurrentdb://127.0.0.1:2113?tls=false),
 * else, where a Docker engine is reachable, against a KurrentDB container it starts itself
 * (`kurrentDbForTests`). These machines have neither (no Docker engine): it is skipped, and says so.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entitlementStream, KurrentDbLedger, transactionStream } from '@settle/ledger';
import { waitUntil } from '../../scripts/ops/clients.js';
import { KURRENTDB_START_TIMEOUT_MS, kurrentDbForTests, startStack, type RunningKurrentDb, type RunningStack } from '@settle/testing';

const kurrentdb = await kurrentDbForTests();

if (typeof kurrentdb === 'string') {
  const reason = kurrentdb;
  console.warn(`[pipeline on KurrentDB] skipped: ${reason}`);
  describe('the pipeline with the ledger on KurrentDB', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
} else {
  let running: RunningKurrentDb;
  let stack: RunningStack;
  let ledger: KurrentDbLedger;

  // The server's start (a container may be pulled first), then the stack's (the e2e hook timeout).
  beforeAll(async () => {
    running = await kurrentdb.start();
    ledger = new KurrentDbLedger(running.connectionString);
    stack = await startStack({
      inactivityMs: 3_000,
      env: { 'ledger-projector': { LEDGER_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: running.connectionString } },
    });
  }, KURRENTDB_START_TIMEOUT_MS + 240_000);

  afterAll(async () => {
    await stack?.stop();
    await ledger?.close();
    await running?.stop();
  });

  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(import.meta.dirname, '../../dist/scripts/ops/ledger.js'), ...args], {
      env: { ...process.env, DATABASE_URL: stack.databaseUrl, LEDGER_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: running.connectionString },
      encoding: 'utf8',
    });

  describe('the pipeline with the ledger on KurrentDB', () => {
    it('settles a paid checkout into the event store, projects it and publishes it once', async () => {
      const reference = `ref_kdb_${randomBytes(6).toString('hex')}`;
      const email = `payer.${reference}@example.com`;
      const userId = `user-${reference}`;
      expect((await stack.sandbox.create({ reference, amount: 500_000, currency: 'NGN', email, behaviour: {} })).status).toBe(201);
      const registered = await stack.ingestion.register({
        provider: 'paystack',
        reference,
        amount: 500_000,
        currency: 'NGN',
        user_id: userId,
        customer: { email },
        entitlement: 'pro-monthly',
        access_period: 'P1M',
      });
      expect(registered.status).toBe(202);
      expect((await stack.sandbox.pay(reference)).status).toBe(200);
      expect((await stack.ingestion.complete(reference)).status).toBe(202);

      // The read model is filled by the projection of $all, after the append committed.
      await waitUntil(`${reference} to settle`, 30_000, async () => {
        const answer = await stack.ingestion.status(reference);
        return answer.status === 200 && answer.body.state === 'SETTLED_CONSENSUS' && answer.body.entitlement_status === 'UNLOCKED' ? true : undefined;
      });
      expect((await ledger.readStream(transactionStream(reference))).map((e) => e.type)).toEqual(['TransactionSettled']);
      expect((await ledger.readStream(entitlementStream(userId, 'pro-monthly'))).map((e) => e.data.reference)).toEqual([reference]);
      // Nothing of it in PostgreSQL's ledger tables: the event store holds the ledger.
      const { rows } = await stack.db.query('SELECT 1 FROM ledger.events WHERE stream_id = $1', [transactionStream(reference)]);
      expect(rows).toEqual([]);

      const settlements = await waitUntil('the settlement to be published', 15_000, async () => {
        const found = (await stack.published('ledger', 'settlements')).filter((m) => m.key === reference);
        return found.length > 0 ? found : undefined;
      });
      expect(settlements).toHaveLength(1);
      const grants = (await stack.published('ledger', 'entitlementEvents')).filter((m) => m.key === userId);
      expect(grants).toHaveLength(1);

      const replayed = cli(['replay', '--reference', reference]);
      expect(replayed.status).toBe(0);
      expect(
        replayed.stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { event_type: string }).event_type),
      ).toEqual(['TransactionSettled']);
      const verified = cli(['verify']);
      expect(verified.stderr).toContain("every stream's chain holds");
      expect(verified.status).toBe(0);
    });
  });
}
