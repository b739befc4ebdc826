import { fileURLToPath } from 'node:url';
import type { SchemaMigrations } from '@settle/platform';

/** Schema of the dispatcher's own vault: the signing secrets of customer endpoints, under its own master keys. */
export const ENDPOINT_VAULT_SCHEMA = 'endpoint_vault';

/**
 * Migrations of the schema the dispatcher owns (`dispatcher`, `apps/dispatcher/migrations/dispatcher/`),
 * applied at its boot, docs/delivery.md:
 * - `endpoints`: the customer's endpoints (URL, subscribed event kinds, state, health, the
 *   version of the signing secret and, during a rotation, of the previous one with its expiry;
 *   the secrets themselves are in the `endpoint_vault` vault);
 * - `events`: every entitlement event received, with the exact JSON body delivered (the inbox:
 *   a redelivered Kafka record is recorded once);
 * - `deliveries`: "recorded": one row per (event, endpoint), its state (`pending`, `delivered`,
 *   `failed` once exhausted and dead-lettered, `cancelled` when its endpoint was deleted), when it
 *   is next due, and while an attempt is in flight the lease token of that attempt (its result
 *   is recorded only if the lease still holds);
 * - `attempts`: "delivered" or not: every attempt with its time, HTTP status, latency and a
 *   bounded, secret-free excerpt of the answer, numbered per delivery;
 * - `outbox`: dead-letter records.
 */
export const DISPATCHER_MIGRATIONS: SchemaMigrations = {
  schema: 'dispatcher',
  dir: fileURLToPath(new URL('../migrations/dispatcher', import.meta.url)),
};
