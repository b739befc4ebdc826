/**
 * Receipts (docs/ledger.md, "Receipts") on a real PostgreSQL: the delivered body carries the
 * receipt of the event's ledger record; `GET /v1/receipts/{event_id}/proof` answers 404
 * RECEIPT.NOT_COVERED_YET with Retry-After until a signed checkpoint covers the event, then the
 * checkpoint and the inclusion proof, which the receiver kit verifies offline with the public key.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  LEDGER_MIGRATIONS,
  LedgerCheckpointer,
  PostgresLedger,
  PostgresLedgerWriter,
  PostgresMerkleLog,
  PostgresReceiptProofs,
  VaultCheckpointKey,
  entitlementStream,
} from '@settle/ledger';
import { createPool, HealthProbes, migrateSchemas, type Pool } from '@settle/platform';
import { CredentialsVault, generateKey, InMemoryVaultStore, MasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@settle/testing';
// The receiver kit as customers install it (it ships on its own, so it is not a workspace alias).
import { parseEvent, receiptOf, verifyReceipt, type ReceiptProof } from '../../../libs/receiver/src/index.js';
import { DeliveryAdmin } from '../src/deliveries/delivery-admin.js';
import { payloadBody } from '../src/deliveries/payload.js';
import { DispatcherMetrics } from '../src/dispatcher.metrics.js';
import { EndpointSecrets } from '../src/endpoints/endpoint-secrets.js';
import { EndpointRepository } from '../src/endpoints/endpoint.repository.js';
import { EndpointService } from '../src/endpoints/endpoint.service.js';
import { createAdminApi } from '../src/http/admin-api.module.js';
import { DISPATCHER_MIGRATIONS, ENDPOINT_VAULT_SCHEMA } from '../src/schema.js';
import { entitlementGrant } from './entitlement-events.js';

const ORIGIN = 'settle.dev/ledger/dispatcher-test';
const MERCHANT_KEY = 'merchant-key-for-receipts';
const ADMIN_KEY = 'admin-key-for-receipts';
const digest = (key: string) => createHash('sha256').update(key).digest('hex');

let pool: Pool;
let drop: () => Promise<void>;
let app: NestFastifyApplication;
let checkpointer: LedgerCheckpointer;
let publicKey: string;

beforeAll(async () => {
  const database = await createTestDatabase('settle_dispatcher_receipts');
  drop = database.drop;
  pool = createPool(database.url, 4);
  await migrateSchemas(pool, [DISPATCHER_MIGRATIONS, vaultMigrations(ENDPOINT_VAULT_SCHEMA), LEDGER_MIGRATIONS]);
  const logger = pino({ level: 'silent' });
  const vault = new CredentialsVault(new PostgresVaultStore(pool, ENDPOINT_VAULT_SCHEMA), MasterKeyRing.from([['v1', generateKey()]]));
  app = await createAdminApi({
    adminApiKeySha256: [digest(ADMIN_KEY)],
    apiKeySha256: [digest(MERCHANT_KEY)],
    receipts: new PostgresReceiptProofs(pool),
    logger,
    pool,
    endpoints: new EndpointService(
      new EndpointRepository(pool),
      new EndpointSecrets(vault),
      { allowHttp: true, allowPrivateNetworks: false, rotationOverlapMs: 0 },
      logger,
    ),
    deliveries: new DeliveryAdmin(pool, { wake: () => undefined }),
    metrics: new DispatcherMetrics(),
    health: new HealthProbes([]),
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  // The projector's checkpointer over the same ledger (its outbox is not under test here).
  const key = new VaultCheckpointKey(new CredentialsVault(new InMemoryVaultStore(), MasterKeyRing.from([['v1', generateKey()]])), ORIGIN);
  const writer = new PostgresLedgerWriter(pool, new PostgresLedger(pool), { enqueue: async () => undefined }, { wake: () => undefined });
  checkpointer = new LedgerCheckpointer(pool, writer, new PostgresMerkleLog(pool), key, null, ORIGIN);
  publicKey = (await key.current()).verifierKey;
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await drop?.();
});

const proofOf = (eventId: string, key: string | null = MERCHANT_KEY) =>
  app.inject({ method: 'GET', url: `/v1/receipts/${eventId}/proof`, headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('receipts', () => {
  it('the delivered body carries the receipt when the record has the stream hash, and the kit validates it', () => {
    const grant = { ...entitlementGrant('user-1', Date.now()), ledger_position: 42, ledger_stream_hash: 'ab'.repeat(32) };
    const body = JSON.parse(payloadBody(grant)) as Record<string, unknown>;
    expect(body.receipt).toEqual({ ledger_position: 42, ledger_hash: 'ab'.repeat(32) });
    expect(parseEvent(body).kind).toBe('entitlement');
    expect(receiptOf(body)).toEqual({ eventId: grant.event_id, ledgerPosition: 42, ledgerHash: 'ab'.repeat(32) });
    expect(JSON.parse(payloadBody({ ...grant, ledger_stream_hash: null }))).not.toHaveProperty('receipt');
  });

  it('answers the proof once a signed checkpoint covers the event, and the kit verifies it offline', async () => {
    const eventId = randomUUID();
    const appended = await new PostgresLedger(pool).append(
      entitlementStream('user-2', 'pro'),
      [{ eventId, type: 'EntitlementGranted', data: { event_id: eventId }, metadata: { correlationId: 'c', causationId: 'c' } }],
      'no_stream',
    );
    const notYet = await proofOf(eventId);
    expect(notYet.statusCode).toBe(404);
    expect(notYet.headers['retry-after']).toBe('60');
    expect(notYet.json()).toMatchObject({ code: 'RECEIPT.NOT_COVERED_YET' });

    expect((await checkpointer.checkpoint()).status).toBe('made');
    const answer = await proofOf(eventId);
    expect(answer.statusCode).toBe(200);
    const proof = answer.json<ReceiptProof>();
    expect(proof).toMatchObject({ event_id: eventId, receipt: { ledger_position: appended.positions[0] }, leaf_index: appended.positions[0]! - 1 });
    const receipt = { eventId, ledgerPosition: proof.receipt.ledger_position, ledgerHash: proof.receipt.ledger_hash };
    expect(verifyReceipt(receipt, proof, [publicKey], { origin: ORIGIN })).toMatchObject({ verified: true });
    // An admin key may ask too (support).
    expect((await proofOf(eventId, ADMIN_KEY)).statusCode).toBe(200);
  });

  it('answers 404 RECEIPT.UNKNOWN_EVENT for an id that is no delivered event, and 401 without a key Settle knows', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const answer = await proofOf(id);
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ code: 'RECEIPT.UNKNOWN_EVENT' });
    }
    expect((await proofOf(randomUUID(), null)).json()).toMatchObject({ status: 401, code: 'AUTH.MISSING_API_KEY' });
    expect((await proofOf(randomUUID(), 'another-key')).json()).toMatchObject({ status: 401, code: 'AUTH.INVALID_API_KEY' });
  });
});
