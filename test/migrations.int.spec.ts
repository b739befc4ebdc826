import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { createPool, migrateSchemas, type Pool, type SchemaMigrations } from '@settle/platform';
import { vaultMigrations } from '@settle/vault';
import { DISPATCHER_MIGRATIONS } from '../apps/dispatcher/src/schema.js';
import { INGESTION_MIGRATIONS } from '../apps/ingestion/src/persistence/schema.js';
import { SWEEPER_MIGRATIONS } from '../apps/sweeper/src/watch.store.js';
import { VERIFIER_MIGRATIONS } from '../apps/verifier/src/schema.js';
import { createTestDatabase } from '@settle/testing';

/**
 * Every schema's versioned migrations, as the apps apply them at boot (docs/postgres.md):
 * a fresh database gets every table, index, constraint, function, trigger and grant that the
 * idempotent DDL of every boot made before versioned migrations (test/fixtures/pre-migrations-ddl.sql,
 * frozen), plus what later migrations add, and a database made by that DDL upgrades to exactly
 * the same, keeping its rows.
 */
const EVERY_SCHEMA: readonly SchemaMigrations[] = [
  INGESTION_MIGRATIONS,
  vaultMigrations('webhook_vault'),
  VERIFIER_MIGRATIONS,
  vaultMigrations('vault'),
  LEDGER_MIGRATIONS,
  READ_MODEL_MIGRATIONS,
  SWEEPER_MIGRATIONS,
  DISPATCHER_MIGRATIONS,
  vaultMigrations('endpoint_vault'),
];
const SCHEMAS = EVERY_SCHEMA.map((m) => m.schema);
const PRE_MIGRATIONS_DDL = readFileSync(new URL('./fixtures/pre-migrations-ddl.sql', import.meta.url), 'utf8');

/** The database objects of Settle's schemas, as sorted lines (the migrations' own record left out). */
async function catalog(pool: Pool): Promise<string[]> {
  const queries = [
    `SELECT table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS line
       FROM information_schema.columns WHERE table_schema = ANY($1) AND table_name <> 'schema_migrations'`,
    `SELECT schemaname || ' ' || indexdef AS line FROM pg_indexes WHERE schemaname = ANY($1) AND tablename <> 'schema_migrations'`,
    `SELECT n.nspname || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) AS line
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE n.nspname = ANY($1) AND c.conrelid::regclass::text NOT LIKE '%schema_migrations'`,
    `SELECT n.nspname || '.' || p.proname || ' ' || md5(p.prosrc) AS line FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ANY($1)`,
    `SELECT pg_get_triggerdef(t.oid) AS line FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ANY($1) AND NOT t.tgisinternal`,
    `SELECT grantee || ' ' || privilege_type || ' ' || table_schema || '.' || table_name AS line
       FROM information_schema.role_table_grants WHERE table_schema = ANY($1) AND grantee <> current_user`,
  ];
  const lines: string[] = [];
  for (const query of queries) lines.push(...(await pool.query<{ line: string }>(query, [SCHEMAS])).rows.map((r) => r.line));
  return lines.sort();
}

let fresh: Awaited<ReturnType<typeof createTestDatabase>>;
let legacy: Awaited<ReturnType<typeof createTestDatabase>>;
let freshPool: Pool;
let legacyPool: Pool;

beforeAll(async () => {
  fresh = await createTestDatabase('settle_migrate_fresh');
  legacy = await createTestDatabase('settle_migrate_legacy');
  freshPool = createPool(fresh.url, 2);
  legacyPool = createPool(legacy.url, 2);
});

afterAll(async () => {
  await freshPool?.end();
  await legacyPool?.end();
  await fresh?.drop();
  await legacy?.drop();
});

describe("every schema's migrations", () => {
  it('give a fresh database what the idempotent DDL gave, and more, and a re-run applies nothing', async () => {
    await migrateSchemas(freshPool, EVERY_SCHEMA);
    await legacyPool.query(PRE_MIGRATIONS_DDL);
    const migrated = await catalog(freshPool);
    expect(migrated.length).toBeGreaterThan(100);
    const legacyCatalog = await catalog(legacyPool);
    expect(legacyCatalog.filter((line) => !migrated.includes(line))).toEqual([]);
    const before = await freshPool.query(`SELECT count(*)::int AS n FROM ledger.schema_migrations`);
    await migrateSchemas(freshPool, EVERY_SCHEMA);
    expect((await freshPool.query(`SELECT count(*)::int AS n FROM ledger.schema_migrations`)).rows).toEqual(before.rows);
  });

  it('upgrade a database made by the idempotent DDL, keeping its rows', async () => {
    // The legacy database of the test above, with a checkout registered and an outbox row waiting.
    await legacyPool.query(
      `INSERT INTO ingestion.checkouts (reference, provider, amount_minor, currency, user_id, entitlement, request_sha256, correlation_id, registered_at)
       VALUES ('ref_1', 'paystack', 500000, 'NGN', 'user_1', 'pro', 'sha', 'corr', now())`,
    );
    await legacyPool.query(
      `INSERT INTO ingestion.outbox (topic, message_key, event_type, payload, correlation_id) VALUES ('t', 'ref_1', 'CheckoutRegistered', '{}', 'corr')`,
    );
    await migrateSchemas(legacyPool, EVERY_SCHEMA);
    expect(await catalog(legacyPool)).toEqual(await catalog(freshPool));
    expect((await legacyPool.query(`SELECT reference, amount_minor FROM ingestion.checkouts`)).rows).toEqual([{ reference: 'ref_1', amount_minor: 500000 }]);
    expect((await legacyPool.query(`SELECT message_key FROM ingestion.outbox`)).rows).toEqual([{ message_key: 'ref_1' }]);
    for (const { schema, dir } of EVERY_SCHEMA) {
      const { rows } = await legacyPool.query<{ name: string }>(`SELECT name FROM ${schema}.schema_migrations ORDER BY id`);
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.sql'))
        .sort()
        .map((f) => f.replace(/\.sql$/, ''));
      expect(rows.map((r) => r.name)).toEqual(files);
    }
  });
});
