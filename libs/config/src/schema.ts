import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_POLICY } from '@settle/domain';
import ms from 'ms';
import { z } from 'zod';
import { Secret } from './secret.js';

/** A required, non-empty string. No silent localhost defaults for brokers or secrets. */
const required = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`);
const secret = (name: string) => required(name).transform((v) => new Secret(v));
/** SHA-256 hex digests (of API keys) from a comma-separated list, lower-cased; unset or empty: none. */
const toDigests = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
const digestList = () => z.string().optional().transform(toDigests);
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const url = (name: string) => required(name).pipe(z.url({ error: `${name} must be a URL` }));

/** Settings every app shares: where Kafka, the schema registry and PostgreSQL are. */
export const sharedEnv = z.object({
  SETTLE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** Comma-separated `host:port` list. */
  KAFKA_BROKERS: required('KAFKA_BROKERS'),
  /** Base URL of the Confluent-compatible schema registry API. */
  SCHEMA_REGISTRY_URL: url('SCHEMA_REGISTRY_URL'),
  DATABASE_URL: required('DATABASE_URL'),
  /** Prefix of every topic name, so several stacks can share a broker. */
  SETTLE_TOPIC_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*$/)
    .default('settle'),
  /** Written once the app is ready (used by the stack scripts), optional. */
  SETTLE_READY_FILE: z.string().optional(),
  /**
   * Port of the worker apps' Prometheus endpoint (`GET /metrics` on 0.0.0.0); 0 or unset
   * serves none. Ingestion serves its metrics on its own port.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
});

/** Nested, typed configuration shared by every app (parsed once at boot). */
export interface SharedConfig {
  env: 'development' | 'test' | 'production';
  logLevel: string;
  kafka: { brokers: string[]; topicPrefix: string };
  schemaRegistry: { url: string };
  database: { url: string };
  readyFile: string | undefined;
  /** Prometheus endpoint port of a worker app, `null` for none. */
  metricsPort: number | null;
}

export function toShared(e: z.infer<typeof sharedEnv>): SharedConfig {
  return {
    env: e.SETTLE_ENV,
    logLevel: e.LOG_LEVEL,
    kafka: {
      brokers: e.KAFKA_BROKERS.split(',')
        .map((b) => b.trim())
        .filter(Boolean),
      topicPrefix: e.SETTLE_TOPIC_PREFIX,
    },
    schemaRegistry: { url: e.SCHEMA_REGISTRY_URL },
    database: { url: e.DATABASE_URL },
    readyFile: e.SETTLE_READY_FILE,
    metricsPort: e.METRICS_PORT === 0 ? null : e.METRICS_PORT,
  };
}

/** Defaults of a worker app's tuning: each worker has its own. */
export interface WorkerTuningDefaults {
  /** Connections of the worker's PostgreSQL pool. */
  poolSize: number;
  /** Partitions its consumer loops handle at once. */
  partitionsConcurrency: number;
  /** Fetch batching: bytes the broker waits for (default 1: answer at once). */
  fetchMinBytes?: number;
  /** Fetch batching: how long the broker may wait for them, milliseconds (default 5 000). */
  fetchMaxWaitMs?: number;
}

/** Tuning variables of a worker app (verifier, ledger projector, sweeper), with its defaults. */
const workerTuning = (defaults: WorkerTuningDefaults) => ({
  /** Most connections the app's PostgreSQL pool opens at once. */
  DATABASE_POOL_SIZE: int(defaults.poolSize, 1),
  /**
   * Partitions each consumer loop handles at once (messages within a partition are always
   * handled in order). More than the partitions this member owns gains nothing.
   */
  WORKER_PARTITIONS_CONCURRENCY: int(defaults.partitionsConcurrency, 1),
  /**
   * Fetch batching (Kafka's fetch.min.bytes / fetch.max.wait.ms): the broker answers a fetch
   * once this many bytes wait, or after WORKER_FETCH_MAX_WAIT_MS. Larger batches mean fewer
   * transactions per message (one per batch) for at most that much added latency per hop.
   */
  WORKER_FETCH_MIN_BYTES: int(defaults.fetchMinBytes ?? 1, 1),
  /** Longest the broker holds a fetch waiting for WORKER_FETCH_MIN_BYTES, milliseconds. */
  WORKER_FETCH_MAX_WAIT_MS: int(defaults.fetchMaxWaitMs ?? 5_000, 1),
  /**
   * The consumer group's session time-out, milliseconds (heartbeats every third of it, at most
   * every 3 s): how long the partitions of a member that died without leaving (SIGKILL, a lost
   * host) wait before the group hands them to another member or to its own restart. Loops that
   * set their own keep it (the sweeper's SWEEPER_SESSION_TIMEOUT_MS).
   */
  WORKER_SESSION_TIMEOUT_MS: int(30_000, 1_000),
});

/** Nested, typed configuration of a worker app: the shared settings plus its tuning. */
export interface WorkerConfig extends SharedConfig {
  database: { url: string; poolSize: number };
  worker: { partitionsConcurrency: number; fetch: { minBytes: number; maxWaitTimeMs: number }; sessionTimeoutMs?: number };
}

/** The shared settings and tuning of a worker app. */
export function toWorker(
  e: z.infer<typeof sharedEnv> & {
    DATABASE_POOL_SIZE: number;
    WORKER_PARTITIONS_CONCURRENCY: number;
    WORKER_FETCH_MIN_BYTES: number;
    WORKER_FETCH_MAX_WAIT_MS: number;
    WORKER_SESSION_TIMEOUT_MS: number;
  },
): WorkerConfig {
  const shared = toShared(e);
  return {
    ...shared,
    database: { ...shared.database, poolSize: e.DATABASE_POOL_SIZE },
    worker: {
      partitionsConcurrency: e.WORKER_PARTITIONS_CONCURRENCY,
      fetch: { minBytes: e.WORKER_FETCH_MIN_BYTES, maxWaitTimeMs: e.WORKER_FETCH_MAX_WAIT_MS },
      sessionTimeoutMs: e.WORKER_SESSION_TIMEOUT_MS,
    },
  };
}

export const ingestionEnv = sharedEnv.extend({
  /** Most connections ingestion's PostgreSQL pool opens at once. */
  DATABASE_POOL_SIZE: int(20, 1),
  INGESTION_HOST: z.string().default('127.0.0.1'),
  INGESTION_PORT: int(3000, 0),
  /**
   * Comma-separated SHA-256 hex digests of the API keys that upstream checkout services
   * present as `Authorization: Bearer <key>`. Keys themselves are never configured.
   */
  SETTLE_API_KEY_SHA256: required('SETTLE_API_KEY_SHA256').transform(toDigests),
  /** Comma-separated SHA-256 hex digests of the admin API keys (manual reconciliation); unset: the admin API refuses every call. */
  SETTLE_ADMIN_API_KEY_SHA256: digestList(),
  /**
   * Webhook signing secrets are not configuration: ingestion reads them from its own vault
   * (schema `webhook_vault`, master keys in SETTLE_VAULT_MASTER_KEYS or _FILE), current and
   * previous, and re-reads them this often, milliseconds.
   */
  WEBHOOK_SECRETS_REFRESH_MS: int(30_000, 100),
  /** Merchant account whose webhook secrets are read. */
  SETTLE_MERCHANT_ACCOUNT: z.string().trim().min(1).default('default'),
  /** Largest accepted request body, bytes. */
  INGESTION_BODY_LIMIT_BYTES: int(262_144, 1024),
});

export const verifierEnv = sharedEnv.extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 })).extend({
  /*
   * Each provider's own variables (base URL, M-Pesa short code, webhook settings) are
   * declared in its folder of libs/providers and composed by the app
   * (`loadWithProviderEnv` of @settle/providers).
   */
  /** Merchant account whose credentials the verifier reads from the vault. */
  SETTLE_MERCHANT_ACCOUNT: z.string().trim().min(1).default('default'),
  /** Per-call time-out of a provider query, milliseconds. */
  PROVIDER_TIMEOUT_MS: int(5_000, 1),
  /** Attempts per verification, the first included, for 502, 503, 504, 429, time-outs, resets. */
  PROVIDER_RETRY_MAX_ATTEMPTS: int(4, 1),
  /** First backoff delay, milliseconds (exponential, full jitter). */
  PROVIDER_RETRY_INITIAL_DELAY_MS: int(200, 1),
  /** Cap of one backoff delay (and of an honoured Retry-After), milliseconds. */
  PROVIDER_RETRY_MAX_DELAY_MS: int(5_000, 1),
  /**
   * References of one Kafka batch verified at once (provider calls in flight per partition
   * handled); one reference's messages are always handled in order.
   */
  VERIFIER_KEY_CONCURRENCY: int(64, 1),
  /** Consecutive failed verifications that open a provider's circuit breaker. */
  PROVIDER_BREAKER_FAILURES: int(5, 1),
  /** How long an open breaker waits before letting one probe through, milliseconds. */
  PROVIDER_BREAKER_HALF_OPEN_MS: int(30_000, 1),
});

/** The stores the ledger can live in (docs/ledger.md, "One port, two stores"). */
export const LEDGER_STORES = ['postgres', 'kurrentdb'] as const;

/** Where the ledger lives: read by the projector, `./settle ledger` and the read-model rebuild. */
const ledgerStoreFields = {
  /** `postgres` (the `ledger` schema of DATABASE_URL, the default) or `kurrentdb` (EventStoreDB/KurrentDB). */
  LEDGER_STORE: z.enum(LEDGER_STORES).default('postgres'),
  /** For example `kurrentdb://127.0.0.1:2113?tls=false`; required when LEDGER_STORE=kurrentdb. May hold credentials. */
  KURRENTDB_CONNECTION_STRING: z.string().trim().optional(),
};
const kurrentDbNeedsItsConnection = {
  check: (e: { LEDGER_STORE: string; KURRENTDB_CONNECTION_STRING?: string | undefined }) =>
    e.LEDGER_STORE !== 'kurrentdb' || Boolean(e.KURRENTDB_CONNECTION_STRING),
  params: { message: 'KURRENTDB_CONNECTION_STRING is required when LEDGER_STORE=kurrentdb', path: ['KURRENTDB_CONNECTION_STRING'] },
};

/** The ledger store's variables alone (the ops command line). */
export const ledgerStoreEnv = z.object(ledgerStoreFields).refine(kurrentDbNeedsItsConnection.check, kurrentDbNeedsItsConnection.params);

/** Where the ledger lives, parsed. */
export type LedgerStoreConfig = { kind: 'postgres' } | { kind: 'kurrentdb'; connectionString: Secret };

/** The ledger store's configuration from its parsed variables. */
export function toLedgerStore(e: { LEDGER_STORE: (typeof LEDGER_STORES)[number]; KURRENTDB_CONNECTION_STRING?: string | undefined }): LedgerStoreConfig {
  return e.LEDGER_STORE === 'kurrentdb' ? { kind: 'kurrentdb', connectionString: new Secret(e.KURRENTDB_CONNECTION_STRING ?? '') } : { kind: 'postgres' };
}

export const projectorEnv = sharedEnv
  .extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 }))
  .extend(ledgerStoreFields)
  .refine(kurrentDbNeedsItsConnection.check, kurrentDbNeedsItsConnection.params);

export const sweeperEnv = sharedEnv.extend(workerTuning({ poolSize: 5, partitionsConcurrency: 12 })).extend({
  /** Inactivity after which a transaction is orphaned, milliseconds (docs/spec.md, section 8: 45 s). */
  SWEEPER_INACTIVITY_MS: int(45_000, 1),
  /**
   * Longest sleep between two looks for due watches, milliseconds. The sweeper also wakes
   * exactly when the earliest watch of its partitions falls due, so this bounds only how
   * late a watch armed by a message in the meantime can be noticed.
   */
  SWEEPER_TICK_MS: int(250, 10),
  /** Most verification requests published per database transaction. */
  SWEEPER_BATCH_SIZE: int(1_000, 1),
  /** First re-check delay (held in review) and wait between the first two re-checks, milliseconds. */
  SWEEPER_RECHECK_INITIAL_DELAY_MS: int(60_000, 1),
  /** Growth of the wait from one re-check to the next (exponential backoff). */
  SWEEPER_RECHECK_BACKOFF_FACTOR: z.coerce.number().min(1).max(10).default(2),
  /** Longest wait between two re-checks, milliseconds (one hour). */
  SWEEPER_RECHECK_MAX_DELAY_MS: int(3_600_000, 1),
  /** Spread of each wait as a fraction (0.1 is +/- 10 %). */
  SWEEPER_RECHECK_JITTER_RATIO: z.coerce.number().min(0).max(0.5).default(0.1),
  /** Automatic re-checks before a transaction moves to manual review (30: about 24 hours). */
  SWEEPER_RECHECK_LIMIT: int(30, 1),
  /**
   * Consumer-group session time-out, milliseconds: how long a silent (crashed) sweeper keeps
   * its partitions before the group hands them to a survivor.
   */
  SWEEPER_SESSION_TIMEOUT_MS: int(30_000, 1_000),
});

/** A comma-separated list of durations (`5s,1m,2h`, the `ms` package's units), in milliseconds. */
const durationList = (name: string, fallback: readonly number[]) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [...fallback];
      const parse = (part: string): number | undefined => {
        try {
          return ms(part.trim() as ms.StringValue);
        } catch {
          return undefined;
        }
      };
      const values = text.split(',').map(parse);
      if (values.length === 0 || values.some((v) => typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a comma-separated list of durations such as 5s,1m,2h` });
        return z.NEVER;
      }
      return values as number[];
    });

/**
 * The dispatcher: delivers entitlement events to customer endpoints (docs/delivery.md). Every
 * duration in milliseconds; defaults are the documented production values.
 */
export const dispatcherEnv = sharedEnv.extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 })).extend({
  DISPATCHER_HOST: z.string().default('127.0.0.1'),
  /** Port of the admin API, `GET /health` and `GET /metrics`. */
  DISPATCHER_PORT: int(3200, 0),
  /** Comma-separated SHA-256 hex digests of the admin API keys (endpoints and deliveries); unset: the admin API refuses every call. */
  SETTLE_ADMIN_API_KEY_SHA256: digestList(),
  /** Per-attempt time-out (connection, headers and body), milliseconds. */
  DISPATCHER_ATTEMPT_TIMEOUT_MS: int(10_000, 1),
  /**
   * Waits after each failed attempt, such as `5s,1m,2h` (the last one ends the round:
   * dead-lettered); default: the domain's schedule (`DEFAULT_RETRY_WAITS_MS`, 14 attempts over 97.6 h).
   */
  DISPATCHER_RETRY_SCHEDULE: durationList('DISPATCHER_RETRY_SCHEDULE', DEFAULT_RETRY_POLICY.waitsMs),
  /** Spread of each wait as a fraction (0.2 is +/- 20 %). */
  DISPATCHER_RETRY_JITTER_RATIO: z.coerce.number().min(0).max(0.5).default(DEFAULT_RETRY_POLICY.jitterRatio),
  /** Longest `Retry-After` honoured, milliseconds (6 hours). */
  DISPATCHER_RETRY_AFTER_MAX_MS: int(DEFAULT_RETRY_POLICY.retryAfterMaxMs, 0),
  /** An endpoint failing every attempt for this long is disabled with an alert, milliseconds (5 days). */
  DISPATCHER_DISABLE_AFTER_MS: int(DEFAULT_DISABLE_AFTER_MS, 1),
  /** Attempts in flight at once in one dispatcher instance. */
  DISPATCHER_MAX_IN_FLIGHT: int(512, 1),
  /** Attempts in flight at once to one endpoint: all a slow or blackholed endpoint can hold. */
  DISPATCHER_MAX_IN_FLIGHT_PER_ENDPOINT: int(64, 1),
  /** Longest sleep while nothing is known to be due, milliseconds. */
  DISPATCHER_POLL_INTERVAL_MS: int(1_000, 10),
  /** How long the previous secret keeps signing after a rotation, by default, milliseconds (24 hours). */
  DISPATCHER_SECRET_ROTATION_OVERLAP_MS: int(86_400_000, 0),
});

/** Unset, or set to an empty string (as `${VAR:-}` in a compose file does): both mean "not configured". */
const blankIsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
/** An optional secret; `format` checks its shape without ever echoing the value. */
const optionalSecret = (name: string, format?: { test: (value: string) => boolean; hint: string }) =>
  z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .refine((v) => !format || format.test(v), `${name} must ${format?.hint ?? 'be set'}`)
      .transform((v) => new Secret(v))
      .optional(),
  );
const optionalUrl = (name: string) => z.preprocess(blankIsUnset, z.url({ error: `${name} must be a URL` }).optional());

/** Variables that switch each optional sandbox provider on, and the ones that must come with them. */
const SANDBOX_PROVIDER_GROUPS = [
  {
    any: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'SANDBOX_STRIPE_WEBHOOK_URL'],
    requires: ['STRIPE_SECRET_KEY'],
    webhookUrl: 'SANDBOX_STRIPE_WEBHOOK_URL',
    webhookSecret: 'STRIPE_WEBHOOK_SECRET',
  },
  {
    any: ['FLUTTERWAVE_SECRET_KEY', 'FLUTTERWAVE_SECRET_HASH', 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL'],
    requires: ['FLUTTERWAVE_SECRET_KEY'],
    webhookUrl: 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL',
    webhookSecret: 'FLUTTERWAVE_SECRET_HASH',
  },
  {
    any: ['MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY', 'SANDBOX_MPESA_CALLBACK_URL'],
    requires: ['MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY'],
    webhookUrl: null,
    webhookSecret: null,
  },
] as const;

/**
 * Provider sandbox settings. Paystack is always on; Stripe, Flutterwave and M-Pesa are each
 * on when their credentials are set (all of a provider's credentials, or none of them), and
 * their endpoints answer 503 otherwise. A webhook URL without its signing secret is refused.
 */
export const sandboxEnv = z
  .object({
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    SANDBOX_HOST: z.string().default('127.0.0.1'),
    SANDBOX_PORT: int(3100, 0),
    /** The secret key the sandbox expects as Bearer and signs its webhooks with. */
    PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY'),
    /** Where Paystack-style webhooks are delivered (ingestion's `/v1/webhooks/paystack`). */
    SANDBOX_WEBHOOK_URL: url('SANDBOX_WEBHOOK_URL'),
    /** How long a "time out" answer holds the connection, milliseconds. */
    SANDBOX_TIMEOUT_HOLD_MS: int(30_000, 1),
    /**
     * Retries of a webhook answered 5xx or not answered at all, after the first attempt, with
     * exponential backoff from 0.5 s up to 5 s between attempts (real providers retry for days).
     */
    SANDBOX_WEBHOOK_RETRIES: int(4, 0),
    SETTLE_READY_FILE: z.string().optional(),

    /** Stripe secret key expected as `Authorization: Bearer sk_...`. */
    STRIPE_SECRET_KEY: optionalSecret('STRIPE_SECRET_KEY', { test: (v) => /^sk_\S+$/.test(v), hint: 'start with sk_' }),
    /** Stripe webhook endpoint secret the `Stripe-Signature` header is computed with. */
    STRIPE_WEBHOOK_SECRET: optionalSecret('STRIPE_WEBHOOK_SECRET', { test: (v) => /^whsec_\S+$/.test(v), hint: 'start with whsec_' }),
    /** Where `payment_intent.*` events are delivered; unset: none are sent. */
    SANDBOX_STRIPE_WEBHOOK_URL: optionalUrl('SANDBOX_STRIPE_WEBHOOK_URL'),
    /** Flutterwave secret key expected as `Authorization: Bearer FLWSECK...`. */
    FLUTTERWAVE_SECRET_KEY: optionalSecret('FLUTTERWAVE_SECRET_KEY', { test: (v) => /^FLWSECK\S+$/.test(v), hint: 'start with FLWSECK' }),
    /** The dashboard "secret hash" sent as the `verif-hash` webhook header. */
    FLUTTERWAVE_SECRET_HASH: optionalSecret('FLUTTERWAVE_SECRET_HASH'),
    /** Where `charge.completed` webhooks are delivered; unset: none are sent. */
    SANDBOX_FLUTTERWAVE_WEBHOOK_URL: optionalUrl('SANDBOX_FLUTTERWAVE_WEBHOOK_URL'),
    /** Daraja app consumer key (OAuth Basic credentials, with the consumer secret). */
    MPESA_CONSUMER_KEY: optionalSecret('MPESA_CONSUMER_KEY'),
    MPESA_CONSUMER_SECRET: optionalSecret('MPESA_CONSUMER_SECRET'),
    /** Lipa na M-Pesa Online passkey: `Password` = base64(shortcode + passkey + timestamp). */
    MPESA_PASSKEY: optionalSecret('MPESA_PASSKEY'),
    /** The business shortcode queries must name (Daraja's sandbox uses 174379). */
    MPESA_SHORTCODE: z.preprocess(
      blankIsUnset,
      z
        .string()
        .trim()
        .regex(/^\d{5,7}$/, 'MPESA_SHORTCODE must be 5 to 7 digits')
        .default('174379'),
    ),
    /**
     * Where STK callbacks are delivered. Its last path segment is the secret token the
     * receiver checks (callbacks carry no signature), so the whole URL is a secret.
     */
    SANDBOX_MPESA_CALLBACK_URL: optionalSecret('SANDBOX_MPESA_CALLBACK_URL', {
      test: (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && new URL(v).pathname.split('/').some(Boolean),
      hint: 'be an http(s) URL ending in a secret token path segment',
    }),
    /** Lifetime of an M-Pesa OAuth token, milliseconds (Daraja: about an hour). */
    SANDBOX_MPESA_TOKEN_TTL_MS: int(3_599_000, 1),
  })
  .superRefine((e, ctx) => {
    const set = (name: string) => e[name as keyof typeof e] !== undefined;
    for (const group of SANDBOX_PROVIDER_GROUPS) {
      const present = group.any.filter(set);
      if (present.length === 0) continue;
      for (const name of group.requires) {
        if (!set(name)) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when ${present.join(', ')} is set` });
      }
      if (group.webhookUrl && set(group.webhookUrl) && !set(group.webhookSecret)) {
        ctx.addIssue({
          code: 'custom',
          path: [group.webhookSecret],
          message: `${group.webhookSecret} is required when ${group.webhookUrl} is set (webhooks are signed with it)`,
        });
      }
    }
  });

/** `true` or `false`; unset (or empty): `undefined`, for the loader to choose its default. */
const optionalBoolean = (name: string) => z.preprocess(blankIsUnset, z.enum(['true', 'false'], { error: `${name} must be true or false` }).optional());

/**
 * The console's command lines (`apps/console/src/cli/`): only where its database is. They
 * need nothing of the HTTP side (no ingestion URL, no admin key).
 */
export const consoleCliEnv = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  DATABASE_URL: required('DATABASE_URL'),
});

/**
 * The operations console (docs/console.md): a JSON admin API under `/api/v1` and the web app
 * at `/`. It needs no Kafka: it reads PostgreSQL and reconciles through ingestion's admin API.
 */
export const consoleEnv = consoleCliEnv.extend({
  SETTLE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  SETTLE_READY_FILE: z.string().optional(),
  /** Most connections the console's PostgreSQL pool opens at once. */
  DATABASE_POOL_SIZE: int(5, 1),
  CONSOLE_HOST: z.string().default('127.0.0.1'),
  CONSOLE_PORT: int(3400, 0),
  /** Lifetime of a signed-in session (and of its cookie), milliseconds; default 8 hours. */
  CONSOLE_SESSION_TTL_MS: int(28_800_000, 60_000),
  /** Whether the session cookie is `Secure` (sent over HTTPS only); unset: `true` in production, else `false`. */
  CONSOLE_SECURE_COOKIES: optionalBoolean('CONSOLE_SECURE_COOKIES'),
  /** Base URL of ingestion, whose admin API runs manual reconciliation (`POST /v1/admin/checkouts/{reference}/reconcile`). */
  CONSOLE_INGESTION_URL: url('CONSOLE_INGESTION_URL'),
  /** The admin API key the console presents to ingestion (ingestion holds only its SHA-256, `SETTLE_ADMIN_API_KEY_SHA256`). */
  CONSOLE_INGESTION_ADMIN_API_KEY: secret('CONSOLE_INGESTION_ADMIN_API_KEY'),
});
