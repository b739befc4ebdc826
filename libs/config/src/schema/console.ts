import { LEDGER_STORES, ledgerOrigin } from './ledger-store.js';
import { z } from 'zod';
import {
  blankIsUnset,
  databaseUrl,
  host,
  int,
  logLevel,
  optionalBoolean,
  optionalSecret,
  optionalUrl,
  port,
  preparedStatements,
  readyFile,
  secret,
  settleEnv,
  shutdownTimeout,
  url,
} from './shared.js';

/**
 * The console's command lines (`apps/console/src/cli/`): only where its database is. They
 * need nothing of the HTTP side (no ingestion URL, no admin key).
 */
export const consoleCliEnv = z.object({
  LOG_LEVEL: logLevel(),
  DATABASE_URL: databaseUrl(),
  DATABASE_PREPARED_STATEMENTS: preparedStatements(),
});

/**
 * The operations console (docs/console.md): a JSON admin API under `/api/v1` and the web app
 * at `/`. It reads PostgreSQL, reconciles through ingestion's admin API and, when
 * `KAFKA_BROKERS` is set, reads Kafka's offsets for the Overview (it never produces or consumes).
 */
export const consoleEnv = consoleCliEnv
  .extend({
    SETTLE_ENV: settleEnv(),
    SETTLE_READY_FILE: readyFile(),
    SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
    DATABASE_POOL_SIZE: int(5, 1).meta({ description: "Most connections the console's PostgreSQL pool opens at once." }),
    CONSOLE_HOST: host('console'),
    CONSOLE_PORT: port('console', 3400),
    CONSOLE_SESSION_TTL_MS: int(28_800_000, 60_000).meta({
      description: 'Lifetime of a signed-in session (and of its cookie), milliseconds; default 8 hours.',
    }),
    CONSOLE_PROPOSAL_TTL_MS: int(86_400_000, 60_000).meta({
      description:
        'How long a proposal of a sensitive action (matching an unmatched payment) waits for a second admin, milliseconds; default 24 hours (docs/approvals.md).',
    }),
    CONSOLE_SECURE_COOKIES: optionalBoolean('CONSOLE_SECURE_COOKIES').meta({
      description: 'Whether the session cookie is `Secure` (sent over HTTPS only); unset: `true` in production, else `false`.',
    }),
    CONSOLE_INGESTION_URL: url('CONSOLE_INGESTION_URL').meta({
      description: 'Base URL of ingestion, whose admin API runs manual reconciliation (`POST /v1/admin/checkouts/{reference}/reconcile`).',
    }),
    CONSOLE_INGESTION_ADMIN_API_KEY: secret('CONSOLE_INGESTION_ADMIN_API_KEY').meta({
      description: 'The admin API key the console presents to ingestion (ingestion holds only its SHA-256, `SETTLE_ADMIN_API_KEY_SHA256`).',
    }),
    CONSOLE_DISPATCHER_URL: optionalUrl('CONSOLE_DISPATCHER_URL').meta({
      description:
        'Base URL of the dispatcher, whose admin API the Deliveries pages read and act through (`/v1/admin/endpoints`, `/v1/admin/deliveries`, `/v1/admin/events/{event_id}/...`). Optional, together with its key: unset, the Deliveries API answers 503 `CONSOLE.DELIVERY_NOT_CONFIGURED`.',
    }),
    CONSOLE_DISPATCHER_ADMIN_API_KEY: optionalSecret('CONSOLE_DISPATCHER_ADMIN_API_KEY').meta({
      description: 'The admin API key the console presents to the dispatcher (the dispatcher holds only its SHA-256, `SETTLE_ADMIN_API_KEY_SHA256`).',
    }),
    KAFKA_BROKERS: z.preprocess(blankIsUnset, z.string().trim().optional()).meta({
      description:
        "Comma-separated `host:port` list of the brokers the other apps use; optional. Set, the Overview shows the dead-letter topics' records and the workers' consumer lag (read with Kafka's admin API only); unset, it says they are not configured.",
    }),
    SETTLE_TOPIC_PREFIX: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]*$/)
      .default('settle')
      .meta({ description: "Prefix of the other apps' topic and consumer group names (`SETTLE_TOPIC_PREFIX` of theirs)." }),
    LEDGER_STORE: z
      .enum(LEDGER_STORES)
      .default('postgres')
      .meta({ description: 'Where the ledger lives: the console verifies the hash chains of a `postgres` ledger only.' }),
    KURRENTDB_CONNECTION_STRING: z
      .string()
      .trim()
      .optional()
      .meta({ description: 'For example `kurrentdb://127.0.0.1:2113?tls=false`; required when LEDGER_STORE=kurrentdb. May hold credentials.' }),
    CONSOLE_LEDGER_VERIFY_INTERVAL_MS: int(60_000, 1_000).meta({
      description: "How often the console verifies the ledger's hash chains from its last checkpoint, milliseconds; default 60 s.",
    }),
    CONSOLE_LEDGER_FULL_VERIFY_INTERVAL_MS: int(86_400_000, 60_000).meta({
      description: 'How often that verification starts again from the first event instead, milliseconds; default 24 h.',
    }),
    LEDGER_CHECKPOINT_DIR: z.preprocess(blankIsUnset, z.string().trim().optional()).meta({
      description:
        'The checkpoint sink the ledger projector writes its signed checkpoints to (docs/ledger.md, "Where checkpoints go"), read only: each verification of the hash chains also checks the ledger against the checkpoints in it. Unset or unreadable, the chains are still verified and the Overview says the checkpoints were not checked, and why.',
    }),
    LEDGER_ORIGIN: ledgerOrigin.meta({
      description:
        "The ledger's name in its signed checkpoints (the projector's `LEDGER_ORIGIN`): a checkpoint naming another is refused (`CHECKPOINT_OTHER_LEDGER`).",
    }),
    LEDGER_CHECKPOINT_KEYS: z.preprocess(blankIsUnset, z.string().trim().optional()).meta({
      description:
        'The checkpoint verifier keys to trust, `<origin>+<key id>+<base64>`, one per line or comma-separated (the current key and those retired; docs/ledger.md, "The checkpoint key"). Unset: the keys published in the sink\'s `keys/` folder, which whoever can write the sink could replace: set it from a copy received through another channel.',
    }),
  })
  .superRefine((e, context) => {
    if (e.LEDGER_STORE === 'kurrentdb' && !e.KURRENTDB_CONNECTION_STRING) {
      context.addIssue({
        code: 'custom',
        path: ['KURRENTDB_CONNECTION_STRING'],
        message: 'KURRENTDB_CONNECTION_STRING is required when LEDGER_STORE=kurrentdb',
      });
    }
    // Half a dispatcher configuration is a mistake, never a choice: both or neither.
    if ((e.CONSOLE_DISPATCHER_URL === undefined) !== (e.CONSOLE_DISPATCHER_ADMIN_API_KEY === undefined)) {
      const missing = e.CONSOLE_DISPATCHER_URL === undefined ? 'CONSOLE_DISPATCHER_URL' : 'CONSOLE_DISPATCHER_ADMIN_API_KEY';
      context.addIssue({
        code: 'custom',
        path: [missing],
        message: `${missing} is required when ${missing === 'CONSOLE_DISPATCHER_URL' ? 'CONSOLE_DISPATCHER_ADMIN_API_KEY' : 'CONSOLE_DISPATCHER_URL'} is set`,
      });
    }
  });
