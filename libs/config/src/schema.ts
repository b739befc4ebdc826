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
/** A required secret, marked `secret` in its metadata (the `.env.example` files leave it blank). */
const secret = (name: string) =>
  required(name)
    .transform((v) => new Secret(v))
    .meta({ secret: true });
/** SHA-256 hex digests (of API keys) from a comma-separated list, lower-cased; unset or empty: none. */
const toDigests = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
const digestList = () => z.string().optional().transform(toDigests);
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const url = (name: string) => required(name).pipe(z.url({ error: `${name} must be a URL` }));

/** `development`, `test` or `production`: production refuses plain-http and private customer endpoints, and sets `Secure` cookies. */
const settleEnv = () =>
  z
    .enum(['development', 'test', 'production'])
    .default('development')
    .meta({ description: "Where the app runs: production refuses plain-http and private-network customer endpoints and makes the console's cookies Secure." });
const logLevel = () =>
  z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
    .default('info')
    .meta({ description: 'Lowest level of the JSON (pino) log lines written to standard output.' });
const databaseUrl = () =>
  required('DATABASE_URL').meta({
    description: 'PostgreSQL connection string (`postgres://user:password@host:5432/settle`); may hold a password.',
    secret: true,
  });
const readyFile = () => z.string().optional().meta({ description: 'Path of a file written once the app is ready (used by the stack scripts); unset: none.' });
const host = (app: string) =>
  z
    .string()
    .default('127.0.0.1')
    .meta({ description: `Address the ${app} HTTP server listens on.` });
const port = (app: string, fallback: number) => int(fallback, 0).meta({ description: `TCP port of the ${app} HTTP server (0: any free port).` });
/**
 * The bound on a graceful shutdown (docs/operations.md, "Graceful shutdown"): 30 s by default,
 * half of the Kubernetes manifests' `terminationGracePeriodSeconds` (60), so the orchestrator's
 * SIGKILL never cuts a shutdown that is still within its bound.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;
const shutdownTimeout = () =>
  int(DEFAULT_SHUTDOWN_TIMEOUT_MS, 1_000).meta({
    description:
      "Longest a graceful shutdown (SIGTERM or SIGINT) may take, milliseconds: the app stops taking work, finishes or hands back what it holds, flushes its outbox and closes its connections, then exits 0; past this bound it logs what was still running and exits 1. Keep it below the orchestrator's grace period (Kubernetes terminationGracePeriodSeconds, compose stop_grace_period).",
  });

/** Settings every app shares: where Kafka, the schema registry and PostgreSQL are. */
export const sharedEnv = z.object({
  SETTLE_ENV: settleEnv(),
  LOG_LEVEL: logLevel(),
  KAFKA_BROKERS: required('KAFKA_BROKERS').meta({ description: 'Comma-separated `host:port` list.' }),
  SCHEMA_REGISTRY_URL: url('SCHEMA_REGISTRY_URL').meta({ description: 'Base URL of the Confluent-compatible schema registry API.' }),
  DATABASE_URL: databaseUrl(),
  SETTLE_TOPIC_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*$/)
    .default('settle')
    .meta({ description: 'Prefix of every topic name, so several stacks can share a broker.' }),
  SETTLE_READY_FILE: readyFile(),
  SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(0).meta({
    description:
      "Port of the Kafka workers' Prometheus endpoint and health routes (verifier, ledger projector, sweeper, dispatcher: `GET /metrics` on 0.0.0.0, with the default process metrics, `GET /health/live` and `GET /health/ready`); 0 or unset serves none. Ingestion, the console and the dispatcher also serve `GET /metrics` and the health routes on their HTTP port; ingestion ignores this variable.",
  }),
});

/** Nested, typed configuration shared by every app (parsed once at boot). */
export interface SharedConfig {
  env: 'development' | 'test' | 'production';
  logLevel: string;
  kafka: { brokers: string[]; topicPrefix: string };
  schemaRegistry: { url: string };
  database: { url: string };
  readyFile: string | undefined;
  /** Longest a graceful shutdown may take, milliseconds (`SHUTDOWN_TIMEOUT_MS`). */
  shutdownTimeoutMs: number;
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
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
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
  DATABASE_POOL_SIZE: int(defaults.poolSize, 1).meta({ description: "Most connections the app's PostgreSQL pool opens at once." }),
  WORKER_PARTITIONS_CONCURRENCY: int(defaults.partitionsConcurrency, 1).meta({
    description:
      'Partitions each consumer loop handles at once (messages within a partition are always handled in order). More than the partitions this member owns gains nothing.',
  }),
  WORKER_FETCH_MIN_BYTES: int(defaults.fetchMinBytes ?? 1, 1).meta({
    description:
      "Fetch batching (Kafka's fetch.min.bytes / fetch.max.wait.ms): the broker answers a fetch once this many bytes wait, or after WORKER_FETCH_MAX_WAIT_MS. Larger batches mean fewer transactions per message (one per batch) for at most that much added latency per hop.",
  }),
  WORKER_FETCH_MAX_WAIT_MS: int(defaults.fetchMaxWaitMs ?? 5_000, 1).meta({
    description: 'Longest the broker holds a fetch waiting for WORKER_FETCH_MIN_BYTES, milliseconds.',
  }),
  WORKER_SESSION_TIMEOUT_MS: int(6_000, 1_000).meta({
    description:
      "The consumer group's session time-out, milliseconds (heartbeats every third of it, at most every 3 s, also while a batch is handled; 6 000 is the broker's smallest allowed, group.min.session.timeout.ms): how long the partitions of a member that died without leaving (SIGKILL, a lost host) wait before the group hands them to another member or to its own restart. Loops that set their own keep it (the sweeper's SWEEPER_SESSION_TIMEOUT_MS).",
  }),
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
  DATABASE_POOL_SIZE: int(20, 1).meta({ description: "Most connections ingestion's PostgreSQL pool opens at once." }),
  INGESTION_HOST: host('ingestion'),
  INGESTION_PORT: port('ingestion', 3000),
  SETTLE_API_KEY_SHA256: required('SETTLE_API_KEY_SHA256').transform(toDigests).meta({
    description:
      'Comma-separated SHA-256 hex digests of the API keys that upstream checkout services present as `Authorization: Bearer <key>`. Keys themselves are never configured.',
  }),
  SETTLE_ADMIN_API_KEY_SHA256: digestList().meta({
    description: 'Comma-separated SHA-256 hex digests of the admin API keys (manual reconciliation); unset: the admin API refuses every call.',
  }),
  WEBHOOK_SECRETS_REFRESH_MS: int(30_000, 100).meta({
    description:
      'Webhook signing secrets are not configuration: ingestion reads them from its own vault (schema `webhook_vault`, master keys in SETTLE_VAULT_MASTER_KEYS or _FILE), current and previous, and re-reads them this often, milliseconds.',
  }),
  SETTLE_MERCHANT_ACCOUNT: z.string().trim().min(1).default('default').meta({ description: 'Merchant account whose webhook secrets are read.' }),
  INGESTION_BODY_LIMIT_BYTES: int(262_144, 1024).meta({ description: 'Largest accepted request body, bytes.' }),
  SETTLE_VERIFY_COALESCE_MS: int(5_000, 0).meta({
    description:
      'Per reference, after a provider answer, how long a spoofed webhook, `/verify` or `/attempts` is answered from that answer instead of querying the provider again, milliseconds; a pending request of the same trigger is always shared (`decideVerificationRequest` of @settle/domain, docs/webhooks.md).',
  }),
});

export const verifierEnv = sharedEnv.extend(workerTuning({ poolSize: 10, partitionsConcurrency: 6 })).extend({
  /*
   * Each provider's own variables (base URL, M-Pesa short code, webhook settings) are
   * declared in its folder of libs/providers and composed by the app
   * (`loadWithProviderEnv` of @settle/providers).
   */
  SETTLE_MERCHANT_ACCOUNT: z
    .string()
    .trim()
    .min(1)
    .default('default')
    .meta({ description: 'Merchant account whose credentials the verifier reads from the vault.' }),
  PROVIDER_TIMEOUT_MS: int(5_000, 1).meta({ description: 'Per-call time-out of a provider query, milliseconds.' }),
  PROVIDER_RETRY_MAX_ATTEMPTS: int(4, 1).meta({ description: 'Attempts per verification, the first included, for 502, 503, 504, 429, time-outs, resets.' }),
  PROVIDER_RETRY_INITIAL_DELAY_MS: int(200, 1).meta({ description: 'First backoff delay, milliseconds (exponential, full jitter).' }),
  PROVIDER_RETRY_MAX_DELAY_MS: int(5_000, 1).meta({ description: 'Cap of one backoff delay (and of an honoured Retry-After), milliseconds.' }),
  VERIFIER_KEY_CONCURRENCY: int(64, 1).meta({
    description:
      "References of one Kafka batch verified at once (provider calls in flight per partition handled); one reference's messages are always handled in order.",
  }),
  PROVIDER_BREAKER_FAILURE_RATIO: z.coerce.number().gt(0).lt(1).default(0.5).meta({
    description:
      "Share of a provider's verifications in the window that failed (502, 503, 504, 429, time-outs, resets, after all retries) above which its circuit breaker opens; strictly between 0 and 1.",
  }),
  PROVIDER_BREAKER_WINDOW_MS: int(10_000, 1_000).meta({ description: "The sliding window a provider's failure share is taken over, milliseconds." }),
  PROVIDER_BREAKER_MIN_VERIFICATIONS: int(10, 1).meta({
    description: 'Fewest verifications of a provider in the window before its circuit breaker can open at all.',
  }),
  PROVIDER_BREAKER_HALF_OPEN_MS: int(5_000, 1).meta({
    description:
      'How long an open breaker waits before letting one probe through, milliseconds (5 000: a provider that is back is queried again within 5 s; docs/reliability.md).',
  }),
});

/** The stores the ledger can live in (docs/ledger.md, "One port, two stores"). */
export const LEDGER_STORES = ['postgres', 'kurrentdb'] as const;

/** Where the ledger lives: read by the projector, `./settle ledger` and the read-model rebuild. */
const ledgerStoreFields = {
  LEDGER_STORE: z
    .enum(LEDGER_STORES)
    .default('postgres')
    .meta({ description: '`postgres` (the `ledger` schema of DATABASE_URL, the default) or `kurrentdb` (EventStoreDB/KurrentDB).' }),
  KURRENTDB_CONNECTION_STRING: z
    .string()
    .trim()
    .optional()
    .meta({ description: 'For example `kurrentdb://127.0.0.1:2113?tls=false`; required when LEDGER_STORE=kurrentdb. May hold credentials.' }),
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
  SWEEPER_INACTIVITY_MS: int(45_000, 1).meta({
    description: 'Inactivity after which a transaction is orphaned, milliseconds (docs/spec.md, section 8: 45 s).',
  }),
  SWEEPER_TICK_MS: int(250, 10).meta({
    description:
      'Longest sleep between two looks for due watches, milliseconds. The sweeper also wakes exactly when the earliest watch of its partitions falls due, so this bounds only how late a watch armed by a message in the meantime can be noticed.',
  }),
  SWEEPER_BATCH_SIZE: int(1_000, 1).meta({ description: 'Most verification requests published per database transaction.' }),
  SWEEPER_RECHECK_INITIAL_DELAY_MS: int(60_000, 1).meta({
    description: 'First re-check delay (held in review) and wait between the first two re-checks, milliseconds.',
  }),
  SWEEPER_RECHECK_BACKOFF_FACTOR: z.coerce
    .number()
    .min(1)
    .max(10)
    .default(2)
    .meta({ description: 'Growth of the wait from one re-check to the next (exponential backoff).' }),
  SWEEPER_RECHECK_MAX_DELAY_MS: int(3_600_000, 1).meta({ description: 'Longest wait between two re-checks, milliseconds (one hour).' }),
  SWEEPER_RECHECK_JITTER_RATIO: z.coerce.number().min(0).max(0.5).default(0.1).meta({ description: 'Spread of each wait as a fraction (0.1 is +/- 10 %).' }),
  SWEEPER_RECHECK_LIMIT: int(30, 1).meta({ description: 'Automatic re-checks before a transaction moves to manual review (30: about 24 hours).' }),
  SWEEPER_SESSION_TIMEOUT_MS: int(6_000, 1_000).meta({
    description:
      "Consumer-group session time-out, milliseconds: how long a silent (crashed) sweeper keeps its partitions before the group hands them to a survivor (6 000, the broker's smallest allowed, bounds the recovery after a crash; docs/reliability.md).",
  }),
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
  DISPATCHER_HOST: host('dispatcher'),
  DISPATCHER_PORT: int(3200, 0).meta({ description: 'Port of the admin API, `GET /health/live`, `GET /health/ready` and `GET /metrics`.' }),
  SETTLE_ADMIN_API_KEY_SHA256: digestList().meta({
    description: 'Comma-separated SHA-256 hex digests of the admin API keys (endpoints and deliveries); unset: the admin API refuses every call.',
  }),
  DISPATCHER_ATTEMPT_TIMEOUT_MS: int(10_000, 1).meta({ description: 'Per-attempt time-out (connection, headers and body), milliseconds.' }),
  DISPATCHER_RETRY_SCHEDULE: durationList('DISPATCHER_RETRY_SCHEDULE', DEFAULT_RETRY_POLICY.waitsMs).meta({
    description:
      "Waits after each failed attempt, such as `5s,1m,2h` (the last one ends the round: dead-lettered); default: the domain's schedule (`DEFAULT_RETRY_WAITS_MS`, 14 attempts over 97.6 h).",
    defaultText: DEFAULT_RETRY_POLICY.waitsMs.map((wait) => ms(wait)).join(','),
    unit: 'comma-separated durations (`ms` units: 5s, 1m, 2h)',
  }),
  DISPATCHER_RETRY_JITTER_RATIO: z.coerce
    .number()
    .min(0)
    .max(0.5)
    .default(DEFAULT_RETRY_POLICY.jitterRatio)
    .meta({ description: 'Spread of each wait as a fraction (0.2 is +/- 20 %).' }),
  DISPATCHER_RETRY_AFTER_MAX_MS: int(DEFAULT_RETRY_POLICY.retryAfterMaxMs, 0).meta({ description: 'Longest `Retry-After` honoured, milliseconds (6 hours).' }),
  DISPATCHER_DISABLE_AFTER_MS: int(DEFAULT_DISABLE_AFTER_MS, 1).meta({
    description: 'An endpoint failing every attempt for this long is disabled with an alert, milliseconds (5 days).',
  }),
  DISPATCHER_MAX_IN_FLIGHT: int(512, 1).meta({ description: 'Attempts in flight at once in one dispatcher instance.' }),
  DISPATCHER_MAX_IN_FLIGHT_PER_ENDPOINT: int(64, 1).meta({
    description: 'Attempts in flight at once to one endpoint: all a slow or blackholed endpoint can hold.',
  }),
  DISPATCHER_POLL_INTERVAL_MS: int(1_000, 10).meta({ description: 'Longest sleep while nothing is known to be due, milliseconds.' }),
  DISPATCHER_SECRET_ROTATION_OVERLAP_MS: int(86_400_000, 0).meta({
    description: 'How long the previous secret keeps signing after a rotation, by default, milliseconds (24 hours).',
  }),
});

/** Unset, or set to an empty string (as `${VAR:-}` in a compose file does): both mean "not configured". */
const blankIsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
/** An optional secret; `format` checks its shape without ever echoing the value. */
const optionalSecret = (name: string, format?: { test: (value: string) => boolean; hint: string }) =>
  z
    .preprocess(
      blankIsUnset,
      z
        .string()
        .trim()
        .refine((v) => !format || format.test(v), `${name} must ${format?.hint ?? 'be set'}`)
        .transform((v) => new Secret(v))
        .optional(),
    )
    .meta({ secret: true });
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
    LOG_LEVEL: logLevel(),
    SANDBOX_HOST: host('sandbox'),
    SANDBOX_PORT: port('sandbox', 3100),
    PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY').meta({ description: 'The secret key the sandbox expects as Bearer and signs its webhooks with.' }),
    SANDBOX_WEBHOOK_URL: url('SANDBOX_WEBHOOK_URL').meta({ description: "Where Paystack-style webhooks are delivered (ingestion's `/v1/webhooks/paystack`)." }),
    SANDBOX_TIMEOUT_HOLD_MS: int(30_000, 1).meta({ description: 'How long a "time out" answer holds the connection, milliseconds.' }),
    SANDBOX_WEBHOOK_RETRIES: int(4, 0).meta({
      description:
        'Retries of a webhook answered 5xx or not answered at all, after the first attempt, with exponential backoff from 0.5 s up to 5 s between attempts (real providers retry for days).',
    }),
    SETTLE_READY_FILE: readyFile(),
    SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),

    STRIPE_SECRET_KEY: optionalSecret('STRIPE_SECRET_KEY', { test: (v) => /^sk_\S+$/.test(v), hint: 'start with sk_' }).meta({
      description: 'Stripe secret key expected as `Authorization: Bearer sk_...`.',
    }),
    STRIPE_WEBHOOK_SECRET: optionalSecret('STRIPE_WEBHOOK_SECRET', { test: (v) => /^whsec_\S+$/.test(v), hint: 'start with whsec_' }).meta({
      description: 'Stripe webhook endpoint secret the `Stripe-Signature` header is computed with.',
    }),
    SANDBOX_STRIPE_WEBHOOK_URL: optionalUrl('SANDBOX_STRIPE_WEBHOOK_URL').meta({
      description: 'Where `payment_intent.*` events are delivered; unset: none are sent.',
    }),
    FLUTTERWAVE_SECRET_KEY: optionalSecret('FLUTTERWAVE_SECRET_KEY', { test: (v) => /^FLWSECK\S+$/.test(v), hint: 'start with FLWSECK' }).meta({
      description: 'Flutterwave secret key expected as `Authorization: Bearer FLWSECK...`.',
    }),
    FLUTTERWAVE_SECRET_HASH: optionalSecret('FLUTTERWAVE_SECRET_HASH').meta({
      description: 'The dashboard "secret hash" sent as the `verif-hash` webhook header.',
    }),
    SANDBOX_FLUTTERWAVE_WEBHOOK_URL: optionalUrl('SANDBOX_FLUTTERWAVE_WEBHOOK_URL').meta({
      description: 'Where `charge.completed` webhooks are delivered; unset: none are sent.',
    }),
    MPESA_CONSUMER_KEY: optionalSecret('MPESA_CONSUMER_KEY').meta({
      description: 'Daraja app consumer key (OAuth Basic credentials, with the consumer secret).',
    }),
    MPESA_CONSUMER_SECRET: optionalSecret('MPESA_CONSUMER_SECRET').meta({
      description: 'Daraja app consumer secret (OAuth Basic credentials, with the consumer key).',
    }),
    MPESA_PASSKEY: optionalSecret('MPESA_PASSKEY').meta({
      description: 'Lipa na M-Pesa Online passkey: `Password` = base64(shortcode + passkey + timestamp).',
    }),
    MPESA_SHORTCODE: z
      .preprocess(
        blankIsUnset,
        z
          .string()
          .trim()
          .regex(/^\d{5,7}$/, 'MPESA_SHORTCODE must be 5 to 7 digits')
          .default('174379'),
      )
      .meta({ description: "The business shortcode queries must name (Daraja's sandbox uses 174379)." }),
    SANDBOX_MPESA_CALLBACK_URL: optionalSecret('SANDBOX_MPESA_CALLBACK_URL', {
      test: (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && new URL(v).pathname.split('/').some(Boolean),
      hint: 'be an http(s) URL ending in a secret token path segment',
    }).meta({
      description:
        'Where STK callbacks are delivered. Its last path segment is the secret token the receiver checks (callbacks carry no signature), so the whole URL is a secret.',
    }),
    SANDBOX_MPESA_TOKEN_TTL_MS: int(3_599_000, 1).meta({ description: 'Lifetime of an M-Pesa OAuth token, milliseconds (Daraja: about an hour).' }),
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
  LOG_LEVEL: logLevel(),
  DATABASE_URL: databaseUrl(),
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
    CONSOLE_LEDGER_VERIFY_INTERVAL_MS: int(60_000, 1_000).meta({
      description: "How often the console verifies the ledger's hash chains from its last checkpoint, milliseconds; default 60 s.",
    }),
    CONSOLE_LEDGER_FULL_VERIFY_INTERVAL_MS: int(86_400_000, 60_000).meta({
      description: 'How often that verification starts again from the first event instead, milliseconds; default 24 h.',
    }),
  })
  .superRefine((e, context) => {
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
