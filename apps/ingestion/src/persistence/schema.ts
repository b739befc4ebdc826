import { fileURLToPath } from 'node:url';
import type { SchemaMigrations } from '@settle/platform';

/**
 * Migrations of the schema the ingestion app owns (`ingestion`, `apps/ingestion/migrations/ingestion/`),
 * applied at its boot: the checkout registrations (the terms each reference was registered
 * with, for idempotent retries and 409 conflicts), the webhook inbox (de-duplication by the
 * provider's event identity), and the outbox.
 */
export const INGESTION_MIGRATIONS: SchemaMigrations = {
  schema: 'ingestion',
  dir: fileURLToPath(new URL('../../migrations/ingestion', import.meta.url)),
};
