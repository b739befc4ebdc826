import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SettleError, type ErrorKind } from '@settle/domain';
import { runner } from 'node-pg-migrate';
import type pg from 'pg';
import type { Logger } from 'pino';
import { withClient } from './db.js';

/** Table, in each migrated schema, that records the migrations applied to it (`<schema>.schema_migrations`). */
export const MIGRATIONS_TABLE = 'schema_migrations';

/** A migration file's name: a four-digit version, an underscore, a snake_case name, `.sql`. */
const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** A schema name we interpolate into SQL: lower-case identifier, at most 63 bytes. */
const SCHEMA_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * The versioned migrations of one PostgreSQL schema: a folder of ordered SQL files
 * `NNNN_<name>.sql` (node-pg-migrate's SQL format, an `-- Up Migration` marker before the
 * statements), applied in file-name order with the search path set to `schema`, each once,
 * each in its own transaction. docs/postgres.md says which app owns which schema.
 */
export interface SchemaMigrations {
  /** The schema, for example `ingestion`; created if missing, and home of its `schema_migrations` table. */
  schema: string;
  /** Absolute path of the folder of SQL files (beside the sources, copied into dist/ by the build). */
  dir: string;
}

/** Why a schema's migrations could not be applied: a stable code, and the schema in the message. */
export type MigrationErrorCode =
  /** An applied migration's file changed since it was applied (its checksum differs), or is gone. */
  | 'MIGRATION.CHANGED'
  /** A file in the migrations folder is not named `NNNN_<name>.sql`, or two share a version. */
  | 'MIGRATION.INVALID_FILE'
  /** The schema name is not a plain lower-case identifier. */
  | 'MIGRATION.INVALID_SCHEMA';

/**
 * A schema's migrations refused to run. Thrown at boot, which exits with status 1: the
 * database is left as it was (no migration of the schema is applied).
 */
export class MigrationError extends SettleError {
  readonly kind: ErrorKind = 'internal';

  constructor(
    readonly code: MigrationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

/**
 * The advisory lock key of a schema's migrations (session level, taken with
 * `pg_advisory_lock`, so a second instance booting at the same time waits, then finds nothing
 * left to apply). 48 bits of SHA-256 of `settle-migrate:<schema>`: a safe integer, the same in
 * every process, different per schema.
 */
export function migrationLockKey(schema: string): number {
  return createHash('sha256').update(`settle-migrate:${schema}`).digest().readUIntBE(0, 6);
}

interface MigrationFile {
  /** File name without `.sql`, as node-pg-migrate records it, for example `0001_initial`. */
  name: string;
  /** SHA-256 hex of the file's bytes. */
  checksum: string;
}

/**
 * Reads the migration files of a folder, in order, with their checksums.
 *
 * @throws MigrationError `MIGRATION.INVALID_FILE` for a misnamed file or a repeated version.
 */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
  const versions = new Set<string>();
  const files: MigrationFile[] = [];
  for (const name of names) {
    const version = MIGRATION_FILE.exec(name)?.[1];
    if (version === undefined) throw new MigrationError('MIGRATION.INVALID_FILE', `${join(dir, name)} is not named NNNN_<name>.sql`);
    if (versions.has(version)) throw new MigrationError('MIGRATION.INVALID_FILE', `${dir} has two migrations numbered ${version}`);
    versions.add(version);
    files.push({
      name: name.slice(0, -'.sql'.length),
      checksum: createHash('sha256')
        .update(await readFile(join(dir, name)))
        .digest('hex'),
    });
  }
  return files;
}

/**
 * Applies the pending migrations of one schema (node-pg-migrate's runner), under the schema's
 * advisory lock, and records each one's checksum beside node-pg-migrate's own record
 * (`<schema>.schema_migrations`: id, name, run_on, checksum).
 *
 * Refuses to run (nothing applied) when an applied migration's file changed or disappeared:
 * an applied migration is never edited, a change is a new file. A database made before
 * versioned migrations (by the same DDL, idempotent) simply gets the first migration applied
 * over its tables, which changes nothing in them.
 *
 * The connection is discarded afterwards (its search path was changed).
 *
 * @param logger - receives one line per schema with the migrations applied, if any.
 * @returns the names of the migrations applied now, in order (empty when up to date).
 * @throws MigrationError when the files or the record refuse; the database's error when a migration fails
 *   (that migration is rolled back, the ones before it stay applied).
 */
export async function migrateSchema(pool: pg.Pool, migrations: SchemaMigrations, logger?: Logger): Promise<string[]> {
  const { schema } = migrations;
  if (!SCHEMA_NAME.test(schema)) throw new MigrationError('MIGRATION.INVALID_SCHEMA', `invalid schema name: ${schema}`);
  const files = await readMigrationFiles(migrations.dir);
  const lock = migrationLockKey(schema);
  return withClient(pool, async (client, markBroken) => {
    // Never hand this connection out again: the runner set its search path.
    markBroken(new Error(`connection used to migrate ${schema}`));
    await client.query('SELECT pg_advisory_lock($1)', [lock]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await checkApplied(client, schema, files, logger);
    const applied = await runMigrations(client, migrations, logger).catch(async (error: unknown) => {
      // The failed migration's transaction is still open on this session: end it, then record
      // the checksums of the migrations applied before it.
      await client.query('ROLLBACK').catch(() => undefined);
      await recordChecksums(client, schema, files).catch(() => undefined);
      throw error;
    });
    await recordChecksums(client, schema, files);
    const names = applied.map((migration) => migration.name);
    if (names.length > 0) logger?.info({ schema, applied: names }, 'database migrations applied');
    return names;
  });
}

/** node-pg-migrate's runner on `client`, which holds the schema's lock already. */
function runMigrations(client: pg.PoolClient, { schema, dir }: SchemaMigrations, logger?: Logger): Promise<Array<{ name: string }>> {
  return runner({
    dbClient: client,
    dir,
    schema,
    createSchema: true,
    migrationsSchema: schema,
    migrationsTable: MIGRATIONS_TABLE,
    direction: 'up',
    count: Infinity,
    checkOrder: true,
    // migrateSchema holds the schema's lock on this session until the connection closes.
    noLock: true,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => logger?.warn({ schema }, message),
      error: (message: string) => logger?.error({ schema }, message),
    },
  });
}

/**
 * Applies several schemas' migrations one after the other (an app's boot).
 *
 * @throws as {@link migrateSchema}, for the first schema that fails.
 */
export async function migrateSchemas(pool: pg.Pool, migrations: readonly SchemaMigrations[], logger?: Logger): Promise<void> {
  for (const schemaMigrations of migrations) await migrateSchema(pool, schemaMigrations, logger);
}

/**
 * Refuses an applied migration whose file is gone or was edited. An applied migration with no
 * recorded checksum (a crash between applying it and recording its checksum, the two not being
 * one transaction) is taken as its current file, with a warning: an operator must check that the
 * file was not edited since.
 *
 * @throws MigrationError `MIGRATION.CHANGED`.
 */
async function checkApplied(client: pg.PoolClient, schema: string, files: readonly MigrationFile[], logger?: Logger): Promise<void> {
  const table = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [`${schema}.${MIGRATIONS_TABLE}`]);
  if (!table.rows[0]?.exists) return;
  await client.query(`ALTER TABLE ${schema}.${MIGRATIONS_TABLE} ADD COLUMN IF NOT EXISTS checksum text`);
  const { rows } = await client.query<{ name: string; checksum: string | null }>(`SELECT name, checksum FROM ${schema}.${MIGRATIONS_TABLE} ORDER BY id`);
  const byName = new Map(files.map((file) => [file.name, file.checksum]));
  for (const row of rows) {
    const checksum = byName.get(row.name);
    if (checksum === undefined) throw new MigrationError('MIGRATION.CHANGED', `${schema}: applied migration ${row.name} has no file any more`);
    if (row.checksum === null) {
      logger?.warn(
        { alert: 'SETTLE_MIGRATION_CHECKSUM_MISSING', schema, migration: row.name },
        'an applied migration has no recorded checksum (interrupted boot): its current file is recorded as applied; check it was not edited',
      );
    }
    if (row.checksum !== null && row.checksum !== checksum) {
      throw new MigrationError(
        'MIGRATION.CHANGED',
        `${schema}: applied migration ${row.name} was edited after it was applied (checksum differs); add a new migration instead`,
      );
    }
  }
}

async function recordChecksums(client: pg.PoolClient, schema: string, files: readonly MigrationFile[]): Promise<void> {
  await client.query(`ALTER TABLE ${schema}.${MIGRATIONS_TABLE} ADD COLUMN IF NOT EXISTS checksum text`);
  await client.query(
    `UPDATE ${schema}.${MIGRATIONS_TABLE} m SET checksum = f.checksum
       FROM unnest($1::text[], $2::text[]) AS f(name, checksum)
      WHERE m.name = f.name AND m.checksum IS NULL`,
    [files.map((file) => file.name), files.map((file) => file.checksum)],
  );
}
