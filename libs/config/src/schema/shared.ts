/** What every app's configuration schema shares: the common variables, their parsing helpers, the workers' tuning. */
import { z } from 'zod';
import { Secret } from '../secret.js';

/** A required, non-empty string. No silent localhost defaults for brokers or secrets. */
export const required = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`);
/** A required secret, marked `secret` in its metadata (the `.env.example` files leave it blank). */
export const secret = (name: string) =>
  required(name)
    .transform((v) => new Secret(v))
    .meta({ secret: true });
/** SHA-256 hex digests (of API keys) from a comma-separated list, lower-cased; unset or empty: none. */
export const toDigests = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
export const digestList = () => z.string().optional().transform(toDigests);
export const int = (fallback: number, min = 0, max?: number) => {
  const number = z.coerce.number().int().min(min);
  return (max === undefined ? number : number.max(max)).default(fallback);
};
export const url = (name: string) => required(name).pipe(z.url({ error: `${name} must be a URL` }));

/** `development`, `test` or `production`: production refuses plain-http and private customer endpoints, and sets `Secure` cookies. */
export const settleEnv = () =>
  z
    .enum(['development', 'test', 'production'])
    .default('development')
    .meta({ description: "Where the app runs: production refuses plain-http and private-network customer endpoints and makes the console's cookies Secure." });
export const logLevel = () =>
  z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
    .default('info')
    .meta({ description: 'Lowest level of the JSON (pino) log lines written to standard output.' });
export const databaseUrl = () =>
  required('DATABASE_URL').meta({
    description: 'PostgreSQL connection string (`postgres://user:password@host:5432/settle`); may hold a password.',
    secret: true,
  });
/** Whether repeated statements run as prepared ones (libs/platform `createPool`; docs/postgres.md, "Prepared statements"). */
export const preparedStatements = () =>
  z
    .enum(['true', 'false'], { error: 'DATABASE_PREPARED_STATEMENTS must be true or false' })
    .default('true')
    .transform((v) => v === 'true')
    .meta({
      description:
        "Run the app's repeated parameterised statements as named prepared statements, parsed and planned once per connection instead of at every call. Set false behind a connection pooler in transaction mode that does not keep prepared statements (PgBouncer before 1.21, or without max_prepared_statements).",
    });
export const readyFile = () =>
  z.string().optional().meta({ description: 'Path of a file written once the app is ready (used by the stack scripts); unset: none.' });
export const host = (app: string) =>
  z
    .string()
    .default('127.0.0.1')
    .meta({ description: `Address the ${app} HTTP server listens on.` });
export const port = (app: string, fallback: number) => int(fallback, 0).meta({ description: `TCP port of the ${app} HTTP server (0: any free port).` });
/**
 * The bound on a graceful shutdown (docs/operations.md, "Graceful shutdown"): 30 s by default,
 * half of the Kubernetes manifests' `terminationGracePeriodSeconds` (60), so the orchestrator's
 * SIGKILL never cuts a shutdown that is still within its bound.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;
export const shutdownTimeout = () =>
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
  DATABASE_PREPARED_STATEMENTS: preparedStatements(),
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
  /** `preparedStatements`: repeated statements run as prepared ones (`DATABASE_PREPARED_STATEMENTS`, default true). */
  database: { url: string; preparedStatements?: boolean };
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
    database: { url: e.DATABASE_URL, preparedStatements: e.DATABASE_PREPARED_STATEMENTS },
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
  /** Fetch batching: how long a loop waits before its next fetch after a small batch, milliseconds (default 10). */
  fetchLingerMs?: number;
  /** How long an outbox relay woken while busy waits for company before its pass, milliseconds (default 5). */
  relayLingerMs?: number;
}

/** Tuning variables of a worker app (verifier, ledger projector, sweeper), with its defaults. */
export const workerTuning = (defaults: WorkerTuningDefaults) => ({
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
  WORKER_FETCH_LINGER_MS: int(defaults.fetchLingerMs ?? 10, 0).meta({
    description:
      'After handling a batch of fewer than 100 messages, how long a consumer loop waits before its next fetch, milliseconds: messages arriving meanwhile come in the next batch, one transaction for several instead of one each. Only after a batch, so an idle loop waits for nothing; 0 fetches again at once.',
  }),
  WORKER_FETCH_MAX_BYTES_PER_PARTITION: int(131_072, 1_024).meta({
    description:
      "Most bytes of one partition's records a fetch brings (Kafka's max.partition.fetch.bytes; a record larger than this still comes, alone): what bounds a batch, and the memory it takes, when a consumer loop is far behind (after an outage, or a backlog). 128 KiB is about 350 of Settle's transaction events per partition, about 2 000 over six partitions, the most one group-commit call takes; kafkajs's own default, 1 MiB, let a verifier draining a backlog of 80 000 hold 17 000 decoded messages and reach 323 MiB resident.",
  }),
  OUTBOX_RELAY_LINGER_MS: int(defaults.relayLingerMs ?? 5, 0).meta({
    description:
      "How long the app's outbox relay, woken by a commit while its last pass published, waits for company before its next pass, milliseconds: the rows committed meanwhile go to Kafka in one produce request and one transaction. An idle relay's first wake passes at once; 0 passes at every wake.",
  }),
  WORKER_OFFSET_COMMIT_INTERVAL_MS: int(1_000, 0).meta({
    description:
      "Least time between two Kafka offset commits of a consumer loop while batches keep coming, milliseconds: what is handled meanwhile is committed when the interval ends, on a rebalance and before the loop stops. After a crash at most this much is delivered again, which every handler de-duplicates; 0 commits after every batch (one OffsetCommit request, and one write to the broker's __consumer_offsets, per batch).",
  }),
  WORKER_SESSION_TIMEOUT_MS: int(6_000, 1_000).meta({
    description:
      "The consumer group's session time-out, milliseconds (heartbeats every third of it, at most every 3 s, also while a batch is handled; 6 000 is the broker's smallest allowed, group.min.session.timeout.ms): how long the partitions of a member that died without leaving (SIGKILL, a lost host) wait before the group hands them to another member or to its own restart. Loops that set their own keep it (the sweeper's SWEEPER_SESSION_TIMEOUT_MS).",
  }),
});

/** Nested, typed configuration of a worker app: the shared settings plus its tuning. */
export interface WorkerConfig extends SharedConfig {
  database: { url: string; poolSize: number; preparedStatements?: boolean };
  worker: {
    partitionsConcurrency: number;
    /** Fetch batching; `maxBytesPerPartition` in bytes (`WORKER_FETCH_MAX_BYTES_PER_PARTITION`). */
    fetch: { minBytes: number; maxWaitTimeMs: number; lingerMs: number; maxBytesPerPartition?: number };
    sessionTimeoutMs?: number;
    /** Least time between two offset commits of a loop, milliseconds (`WORKER_OFFSET_COMMIT_INTERVAL_MS`). */
    offsetCommitIntervalMs?: number;
    /** The outbox relay's linger while busy, milliseconds (`OUTBOX_RELAY_LINGER_MS`). */
    relayLingerMs?: number;
  };
}

/** The shared settings and tuning of a worker app. */
export function toWorker(
  e: z.infer<typeof sharedEnv> & {
    DATABASE_POOL_SIZE: number;
    WORKER_PARTITIONS_CONCURRENCY: number;
    WORKER_FETCH_MIN_BYTES: number;
    WORKER_FETCH_MAX_WAIT_MS: number;
    WORKER_FETCH_LINGER_MS: number;
    WORKER_FETCH_MAX_BYTES_PER_PARTITION: number;
    WORKER_OFFSET_COMMIT_INTERVAL_MS: number;
    OUTBOX_RELAY_LINGER_MS: number;
    WORKER_SESSION_TIMEOUT_MS: number;
  },
): WorkerConfig {
  const shared = toShared(e);
  return {
    ...shared,
    database: { ...shared.database, poolSize: e.DATABASE_POOL_SIZE },
    worker: {
      partitionsConcurrency: e.WORKER_PARTITIONS_CONCURRENCY,
      fetch: {
        minBytes: e.WORKER_FETCH_MIN_BYTES,
        maxWaitTimeMs: e.WORKER_FETCH_MAX_WAIT_MS,
        lingerMs: e.WORKER_FETCH_LINGER_MS,
        maxBytesPerPartition: e.WORKER_FETCH_MAX_BYTES_PER_PARTITION,
      },
      sessionTimeoutMs: e.WORKER_SESSION_TIMEOUT_MS,
      offsetCommitIntervalMs: e.WORKER_OFFSET_COMMIT_INTERVAL_MS,
      relayLingerMs: e.OUTBOX_RELAY_LINGER_MS,
    },
  };
}

/** Unset, or set to an empty string (as `${VAR:-}` in a compose file does): both mean "not configured". */
export const blankIsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
/** An optional secret; `format` checks its shape without ever echoing the value. */
export const optionalSecret = (name: string, format?: { test: (value: string) => boolean; hint: string }) =>
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
export const optionalUrl = (name: string) => z.preprocess(blankIsUnset, z.url({ error: `${name} must be a URL` }).optional());

/** `true` or `false`; unset (or empty): `undefined`, for the loader to choose its default. */
export const optionalBoolean = (name: string) => z.preprocess(blankIsUnset, z.enum(['true', 'false'], { error: `${name} must be true or false` }).optional());
