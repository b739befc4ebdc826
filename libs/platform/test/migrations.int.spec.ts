import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPool, migrateSchema, MigrationError, type Pool, type SchemaMigrations } from '@settle/platform';
import { createTestDatabase } from '@settle/testing';

/**
 * The versioned migration runner against the real PostgreSQL: each case gets a schema of its
 * own and a folder of SQL files written for it.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let root: string;
let n = 0;
let schema: string;

const FIRST = `-- Up Migration
CREATE TABLE IF NOT EXISTS items (id bigint PRIMARY KEY, amount_minor bigint NOT NULL);
`;
const SECOND = `-- Up Migration
ALTER TABLE items ADD COLUMN IF NOT EXISTS currency char(3) NOT NULL DEFAULT 'NGN';
`;

/** A folder holding the given files (name -> SQL). */
function folder(files: Record<string, string>): string {
  const dir = join(root, `m${n++}`);
  mkdirSync(dir);
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

const migrations = (files: Record<string, string>): SchemaMigrations => ({ schema, dir: folder(files) });

async function columns(): Promise<string[]> {
  const { rows } = await pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'items' ORDER BY ordinal_position`,
    [schema],
  );
  return rows.map((r) => r.column_name);
}

async function applied(): Promise<Array<{ name: string; checksum: string | null }>> {
  const { rows } = await pool.query<{ name: string; checksum: string | null }>(`SELECT name, checksum FROM ${schema}.schema_migrations ORDER BY id`);
  return rows;
}

beforeAll(async () => {
  database = await createTestDatabase('settle_migrations');
  pool = createPool(database.url, 8);
  root = mkdtempSync(join(tmpdir(), 'settle-migrations-'));
});

beforeEach(() => {
  schema = `m_${Date.now().toString(36)}_${n++}`;
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('migrateSchema', () => {
  it('applies the files of a fresh schema in order and records each with its checksum', async () => {
    const applying = await migrateSchema(pool, migrations({ '0002_currency.sql': SECOND, '0001_items.sql': FIRST }));
    expect(applying).toEqual(['0001_items', '0002_currency']);
    expect(await columns()).toEqual(['id', 'amount_minor', 'currency']);
    const rows = await applied();
    expect(rows.map((r) => r.name)).toEqual(['0001_items', '0002_currency']);
    for (const row of rows) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is a no-op when run again, and applies only the migration added since', async () => {
    const v1 = { '0001_items.sql': FIRST };
    await migrateSchema(pool, migrations(v1));
    expect(await migrateSchema(pool, migrations(v1))).toEqual([]);
    expect(await migrateSchema(pool, migrations({ ...v1, '0002_currency.sql': SECOND }))).toEqual(['0002_currency']);
    expect(await migrateSchema(pool, migrations({ ...v1, '0002_currency.sql': SECOND }))).toEqual([]);
    expect((await applied()).map((r) => r.name)).toEqual(['0001_items', '0002_currency']);
  });

  it('upgrades a schema made by the idempotent DDL before versioned migrations, keeping its rows', async () => {
    // What every boot did before: the same statements, applied with no record of them.
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(`SET search_path TO ${schema}; ${FIRST.replace('-- Up Migration', '')}; RESET search_path`);
    await pool.query(`INSERT INTO ${schema}.items (id, amount_minor) VALUES (1, 50000)`);
    expect(await migrateSchema(pool, migrations({ '0001_items.sql': FIRST, '0002_currency.sql': SECOND }))).toEqual(['0001_items', '0002_currency']);
    const { rows } = await pool.query(`SELECT id, amount_minor, currency FROM ${schema}.items`);
    expect(rows).toEqual([{ id: 1, amount_minor: 50000, currency: 'NGN' }]);
  });

  it('applies each migration once when several instances boot together', async () => {
    const files = { '0001_items.sql': FIRST, '0002_currency.sql': SECOND };
    const runs = await Promise.all(Array.from({ length: 4 }, () => migrateSchema(pool, migrations(files))));
    expect(runs.flat().sort()).toEqual(['0001_items', '0002_currency']);
    expect((await applied()).map((r) => r.name)).toEqual(['0001_items', '0002_currency']);
    expect(await columns()).toEqual(['id', 'amount_minor', 'currency']);
  });

  it('refuses to run when an applied migration was edited, and applies nothing', async () => {
    await migrateSchema(pool, migrations({ '0001_items.sql': FIRST }));
    const edited = FIRST.replace('amount_minor bigint', 'amount_minor integer');
    const run = migrateSchema(pool, migrations({ '0001_items.sql': edited, '0002_currency.sql': SECOND }));
    await expect(run).rejects.toBeInstanceOf(MigrationError);
    await expect(run).rejects.toMatchObject({ code: 'MIGRATION.CHANGED' });
    expect(await columns()).toEqual(['id', 'amount_minor']);
    expect((await applied()).map((r) => r.name)).toEqual(['0001_items']);
  });

  it('refuses to run when an applied migration has no file any more', async () => {
    await migrateSchema(pool, migrations({ '0001_items.sql': FIRST }));
    await expect(migrateSchema(pool, migrations({ '0002_currency.sql': SECOND }))).rejects.toMatchObject({ code: 'MIGRATION.CHANGED' });
  });

  it('refuses a migration numbered before one already applied', async () => {
    await migrateSchema(pool, migrations({ '0002_items.sql': FIRST }));
    await expect(migrateSchema(pool, migrations({ '0001_currency.sql': SECOND.replace('items', 'other'), '0002_items.sql': FIRST }))).rejects.toThrow(
      /preceding already run migration/,
    );
  });

  it('refuses misnamed files and repeated versions before touching the database', async () => {
    await expect(migrateSchema(pool, migrations({ 'items.sql': FIRST }))).rejects.toMatchObject({ code: 'MIGRATION.INVALID_FILE' });
    await expect(migrateSchema(pool, migrations({ '0001_items.sql': FIRST, '0001_other.sql': SECOND }))).rejects.toMatchObject({
      code: 'MIGRATION.INVALID_FILE',
    });
    await expect(migrateSchema(pool, { schema: 'bad-name; DROP', dir: folder({ '0001_items.sql': FIRST }) })).rejects.toMatchObject({
      code: 'MIGRATION.INVALID_SCHEMA',
    });
    const { rowCount } = await pool.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    expect(rowCount).toBe(0);
  });

  it('rolls back a failing migration and keeps the ones before it', async () => {
    const broken = `-- Up Migration
ALTER TABLE items ADD COLUMN note text;
SELECT 1 / 0;
`;
    await expect(migrateSchema(pool, migrations({ '0001_items.sql': FIRST, '0002_broken.sql': broken }))).rejects.toThrow(/division by zero/);
    expect(await columns()).toEqual(['id', 'amount_minor']);
    expect((await applied()).map((r) => r.name)).toEqual(['0001_items']);
    // The connection that failed was discarded: the pool still serves.
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
