import { fileURLToPath } from 'node:url';
import type { SchemaMigrations } from '@settle/platform';

/**
 * Migrations of the schema the verifier owns (`verifier`, `apps/verifier/migrations/verifier/`),
 * applied at its boot: the state of each transaction as the decider folded it (a state-stored
 * decider), the inbox of processed message ids (so a redelivered trigger never queries the
 * provider twice), and the outbox of consensus results.
 */
export const VERIFIER_MIGRATIONS: SchemaMigrations = {
  schema: 'verifier',
  dir: fileURLToPath(new URL('../migrations/verifier', import.meta.url)),
};
