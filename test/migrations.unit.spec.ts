import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEDGER_MIGRATIONS, READ_MODEL_MIGRATIONS } from '@settle/ledger';
import { outboxDdl } from '@settle/messaging';
import { readMigrationFiles, type SchemaMigrations } from '@settle/platform';
import { vaultMigrations } from '@settle/vault';
import { DISPATCHER_MIGRATIONS } from '../apps/dispatcher/src/schema.js';
import { INGESTION_MIGRATIONS } from '../apps/ingestion/src/persistence/schema.js';
import { SWEEPER_MIGRATIONS } from '../apps/sweeper/src/watch.store.js';
import { VERIFIER_MIGRATIONS } from '../apps/verifier/src/schema.js';

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim();

/** The schemas whose owner writes an outbox there (each app's outbox lives in the schema it owns). */
const WITH_OUTBOX: readonly SchemaMigrations[] = [INGESTION_MIGRATIONS, VERIFIER_MIGRATIONS, LEDGER_MIGRATIONS, SWEEPER_MIGRATIONS, DISPATCHER_MIGRATIONS];

describe('migration files', () => {
  it.each(WITH_OUTBOX.map((m) => [m.schema, m] as const))("%s's migrations create the outbox as outboxDdl does", (schema, migrations) => {
    const first = squash(readFileSync(join(migrations.dir, '0001_initial.sql'), 'utf8'));
    const all = squash(
      readdirSync(migrations.dir)
        .sort()
        .map((name) => readFileSync(join(migrations.dir, name), 'utf8'))
        .join('\n'),
    );
    const statements = outboxDdl(schema);
    // The table in the first migration; the trace context columns, added since, in a later one.
    for (const statement of statements.slice(0, -1)) expect(first).toContain(squash(statement));
    expect(statements.at(-1)).toContain('traceparent');
    expect(all).toContain(squash(statements.at(-1)!));
  });

  it.each([...WITH_OUTBOX, READ_MODEL_MIGRATIONS, vaultMigrations()].map((m) => [m.schema, m] as const))(
    "%s's folder holds only numbered, uniquely versioned SQL files, starting at 0001",
    async (_schema, migrations) => {
      const files = await readMigrationFiles(migrations.dir);
      expect(files[0]?.name).toBe('0001_initial');
      expect(files.map((f) => f.name)).toEqual(
        readdirSync(migrations.dir)
          .sort()
          .map((name) => name.replace(/\.sql$/, '')),
      );
    },
  );
});
