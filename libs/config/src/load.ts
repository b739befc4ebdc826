import { SettleError, type AccessPolicy } from '@settle/domain';
import { z } from 'zod';
import {
  ingestionEnv,
  ledgerStoreEnv,
  projectorEnv,
  toLedgerStore,
  type LedgerStoreConfig,
  sandboxCommonEnv,
  sharedEnv,
  sweeperEnv,
  dispatcherEnv,
  consoleEnv,
  consoleCliEnv,
  toWorker,
  verifierEnv,
  type WorkerConfig,
} from './schema/index.js';

/**
 * Configuration is invalid (`CONFIG.INVALID`, kind `invalid`): the app refuses to boot and
 * exits with status 1. Lists the offending variables, never their values.
 */
export class ConfigError extends SettleError {
  readonly code = 'CONFIG.INVALID';
  readonly kind = 'invalid';

  /** @param problems - one line per offending variable: its name and what is wrong, never its value. */
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

function parse<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const result = parseEnv(schema, env);
  if (!result.ok) throw new ConfigError(result.problems);
  return result.value;
}

/**
 * Parses the environment with one schema without throwing, so that a caller composing several
 * schemas (the provider sandbox) can report every problem at once.
 *
 * @returns the parsed value, or the problems as ConfigError lists them (`name: what is wrong`,
 *   never a value).
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): { ok: true; value: z.infer<S> } | { ok: false; problems: string[] } {
  const result = schema.safeParse(env);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problems: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
}

/** Ingestion app configuration. @throws ConfigError */
export function loadIngestionConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(ingestionEnv, env);
  return {
    // The worker tuning: for its consumer loop of the checkout commands topic.
    ...toWorker(e),
    http: { host: e.INGESTION_HOST, port: e.INGESTION_PORT, bodyLimitBytes: e.INGESTION_BODY_LIMIT_BYTES },
    apiKeySha256: e.SETTLE_API_KEY_SHA256,
    adminApiKeySha256: e.SETTLE_ADMIN_API_KEY_SHA256,
    webhooks: {
      merchantAccount: e.SETTLE_MERCHANT_ACCOUNT,
      secretsRefreshMs: e.WEBHOOK_SECRETS_REFRESH_MS,
    },
    /** Coalescing of repeatable verification triggers, milliseconds. */
    verification: { coalesceWindowMs: e.SETTLE_VERIFY_COALESCE_MS },
  };
}
export type IngestionConfig = ReturnType<typeof loadIngestionConfig>;

/** Backoff settings for provider queries (milliseconds). */
export interface RetrySettings {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Circuit breaker settings for provider queries (the failure share over a sliding window). */
export interface BreakerConfig {
  /** Share of the window's verifications that failed above which the breaker opens, between 0 and 1. */
  failureRatio: number;
  /** milliseconds */
  windowMs: number;
  minimumVerifications: number;
  /** milliseconds */
  halfOpenAfterMs: number;
}

/**
 * Verifier app configuration: the settings every provider adapter shares. Each provider's own
 * variables (its base URL, ...) are declared in its folder of libs/providers and composed by the
 * app (`loadWithProviderEnv`). Provider secrets are not configuration: the verifier reads them
 * from the credentials vault (docs/vault.md), whose master keys it loads itself.
 *
 * @throws ConfigError
 */
export function loadVerifierConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(verifierEnv, env);
  const retry: RetrySettings = {
    maxAttempts: e.PROVIDER_RETRY_MAX_ATTEMPTS,
    initialDelayMs: e.PROVIDER_RETRY_INITIAL_DELAY_MS,
    maxDelayMs: e.PROVIDER_RETRY_MAX_DELAY_MS,
  };
  const breaker: BreakerConfig = {
    failureRatio: e.PROVIDER_BREAKER_FAILURE_RATIO,
    windowMs: e.PROVIDER_BREAKER_WINDOW_MS,
    minimumVerifications: e.PROVIDER_BREAKER_MIN_VERIFICATIONS,
    halfOpenAfterMs: e.PROVIDER_BREAKER_HALF_OPEN_MS,
  };
  return {
    ...toWorker(e),
    merchantAccount: e.SETTLE_MERCHANT_ACCOUNT,
    keyConcurrency: e.VERIFIER_KEY_CONCURRENCY,
    reconciliation: {
      enabled: e.RECONCILIATION_ENABLED !== 'false',
      intervalMs: e.RECONCILIATION_INTERVAL_MS,
      overlapMs: e.RECONCILIATION_OVERLAP_MS,
      daily: e.RECONCILIATION_DAILY !== 'false',
      tickMs: e.RECONCILIATION_TICK_MS,
      leaseMs: e.RECONCILIATION_LEASE_MS,
      graceMs: e.RECONCILIATION_GRACE_MS,
      duplicateWindowMs: e.RECONCILIATION_DUPLICATE_WINDOW_MS,
      scope: parseScopeMarkers(e.RECONCILIATION_SCOPE),
    },
    providers: {
      timeoutMs: e.PROVIDER_TIMEOUT_MS,
      retry,
      breaker,
    },
  };
}
export type VerifierConfig = ReturnType<typeof loadVerifierConfig>;

/** Settle's marker in one provider's account (docs/reconciliation.md, "Scope"). */
export type ScopeMarkerConfig = { kind: 'reference_prefix'; prefix: string } | { kind: 'metadata_key'; key: string; value?: string };

/**
 * Parses `RECONCILIATION_SCOPE`: `<provider>=prefix:<prefix>` or `<provider>=metadata:<key>[=<value>]`,
 * comma-separated (`paystack=prefix:ref_,stripe=metadata:settle_reference`).
 *
 * @returns provider name → marker (providers are checked against the registry by the verifier).
 * @throws ConfigError for an entry of another form.
 */
export function parseScopeMarkers(text: string): Record<string, ScopeMarkerConfig> {
  const markers: Record<string, ScopeMarkerConfig> = {};
  for (const [index, entry] of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .entries()) {
    const match = /^([a-z][a-z0-9_]*)=(prefix|metadata):(.+)$/.exec(entry);
    if (!match) throw new ConfigError([`RECONCILIATION_SCOPE: entry ${index + 1} is not <provider>=prefix:<prefix> or <provider>=metadata:<key>[=<value>]`]);
    const [, provider, kind, rest] = match as unknown as [string, string, string, string];
    if (kind === 'prefix') markers[provider] = { kind: 'reference_prefix', prefix: rest };
    else {
      const [key, ...value] = rest.split('=');
      markers[provider] = value.length > 0 ? { kind: 'metadata_key', key: key!, value: value.join('=') } : { kind: 'metadata_key', key: key! };
    }
  }
  return markers;
}

/** Ledger projector configuration: a worker's, plus where the ledger lives. @throws ConfigError */
export function loadProjectorConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig & {
  ledgerStore: LedgerStoreConfig;
  /** Access policies by entitlement (`ACCESS_POLICIES`); an entitlement not listed, or a field left out, keeps the default. */
  accessPolicies: Readonly<Record<string, Partial<AccessPolicy>>>;
  /** Signed checkpoints (docs/ledger.md, "Checkpoints"): the ledger's origin, how often, where the notes go (`null`: no sink). */
  checkpoints: { origin: string; intervalMs: number; dir: string | null };
} {
  const e = parse(projectorEnv, env);
  return {
    ...toWorker(e),
    ledgerStore: toLedgerStore(e),
    accessPolicies: e.ACCESS_POLICIES,
    checkpoints: { origin: e.LEDGER_ORIGIN, intervalMs: e.LEDGER_CHECKPOINT_INTERVAL_MS, dir: e.LEDGER_CHECKPOINT_DIR || null },
  };
}

/** Where the ledger lives (`LEDGER_STORE`, `KURRENTDB_CONNECTION_STRING`), for the ops command line. @throws ConfigError */
export function loadLedgerStoreConfig(env: NodeJS.ProcessEnv = process.env): LedgerStoreConfig {
  return toLedgerStore(parse(ledgerStoreEnv, env));
}
export type ProjectorConfig = ReturnType<typeof loadProjectorConfig>;

/** Sweeper configuration. @throws ConfigError */
export function loadSweeperConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(sweeperEnv, env);
  return {
    ...toWorker(e),
    recovery: {
      inactivityMs: e.SWEEPER_INACTIVITY_MS,
      recheck: {
        initialDelayMs: e.SWEEPER_RECHECK_INITIAL_DELAY_MS,
        backoffFactor: e.SWEEPER_RECHECK_BACKOFF_FACTOR,
        maxDelayMs: e.SWEEPER_RECHECK_MAX_DELAY_MS,
        jitterRatio: e.SWEEPER_RECHECK_JITTER_RATIO,
        limit: e.SWEEPER_RECHECK_LIMIT,
      },
    },
    tick: { intervalMs: e.SWEEPER_TICK_MS, batchSize: e.SWEEPER_BATCH_SIZE },
    sessionTimeoutMs: e.SWEEPER_SESSION_TIMEOUT_MS,
  };
}
export type SweeperConfig = ReturnType<typeof loadSweeperConfig>;

/**
 * Dispatcher configuration (docs/delivery.md). Endpoint secrets are not configuration: the
 * dispatcher generates them and keeps them in its own vault, whose master keys it loads itself.
 *
 * @throws ConfigError
 */
export function loadDispatcherConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(dispatcherEnv, env);
  return {
    ...toWorker(e),
    http: { host: e.DISPATCHER_HOST, port: e.DISPATCHER_PORT },
    adminApiKeySha256: e.SETTLE_ADMIN_API_KEY_SHA256,
    apiKeySha256: e.SETTLE_API_KEY_SHA256,
    delivery: {
      attemptTimeoutMs: e.DISPATCHER_ATTEMPT_TIMEOUT_MS,
      retry: { waitsMs: e.DISPATCHER_RETRY_SCHEDULE, jitterRatio: e.DISPATCHER_RETRY_JITTER_RATIO, retryAfterMaxMs: e.DISPATCHER_RETRY_AFTER_MAX_MS },
      disableAfterMs: e.DISPATCHER_DISABLE_AFTER_MS,
      maxInFlight: e.DISPATCHER_MAX_IN_FLIGHT,
      maxInFlightPerEndpoint: e.DISPATCHER_MAX_IN_FLIGHT_PER_ENDPOINT,
      pollIntervalMs: e.DISPATCHER_POLL_INTERVAL_MS,
      idlePollMaxMs: e.DISPATCHER_IDLE_POLL_MAX_MS,
      resultFlushDelayMs: e.DISPATCHER_RESULT_FLUSH_DELAY_MS,
    },
    // Plain http and private addresses (loopback, RFC 1918, link-local, ...) only outside production.
    endpoints: {
      allowHttp: e.SETTLE_ENV !== 'production',
      allowPrivateNetworks: e.SETTLE_ENV !== 'production',
      rotationOverlapMs: e.DISPATCHER_SECRET_ROTATION_OVERLAP_MS,
    },
  };
}
export type DispatcherConfig = ReturnType<typeof loadDispatcherConfig>;

/**
 * The provider sandbox's common settings (`sandboxCommonEnv`), from the parsed variables; each
 * simulated provider's settings come from its own declaration (`apps/provider-sandbox`).
 */
export function toSandboxCommon(e: z.output<typeof sandboxCommonEnv>) {
  return {
    logLevel: e.LOG_LEVEL,
    http: { host: e.SANDBOX_HOST, port: e.SANDBOX_PORT },
    timeoutHoldMs: e.SANDBOX_TIMEOUT_HOLD_MS,
    webhookRetries: e.SANDBOX_WEBHOOK_RETRIES,
    readyFile: e.SETTLE_READY_FILE,
    /** Longest a graceful shutdown may take, milliseconds. */
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}
export type SandboxCommonConfig = ReturnType<typeof toSandboxCommon>;

/** Brokers and topic prefix when `brokers` lists at least one broker, else `null` (Kafka not configured). */
function kafkaOf(brokers: string | undefined, topicPrefix: string): { brokers: string[]; topicPrefix: string } | null {
  const list = (brokers ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return list.length > 0 ? { brokers: list, topicPrefix } : null;
}

/**
 * Console configuration (docs/console.md): where it listens, its sessions' lifetime and cookie
 * flags, its database, ingestion's admin API it reconciles through, and the dispatcher's admin
 * API its Deliveries pages use (optional, docs/console.md, "Deliveries").
 *
 * @returns `http` (host, port), `database` (url, poolSize, preparedStatements), `session` (`ttlMs` milliseconds,
 *   `secureCookies`), `ingestion` (`url`, `adminApiKey` a {@link Secret}), `dispatcher`
 *   (`url`, `adminApiKey` a {@link Secret}; `null` when `CONSOLE_DISPATCHER_URL` and
 *   `CONSOLE_DISPATCHER_ADMIN_API_KEY` are both unset), `kafka` (`brokers`, `topicPrefix`; `null`
 *   without `KAFKA_BROKERS`), `ledgerStore` (where the ledger lives, for `openLedgerStore`),
 *   `ledger` (`store`, and the hash-chain verification's `verifyIntervalMs` and
 *   `fullVerifyIntervalMs`, milliseconds), `ledgerCheckpoints` (what that verification checks the
 *   ledger against: the checkpoint sink's `dir`, `null` when `LEDGER_CHECKPOINT_DIR` is unset, the
 *   ledger's `origin`, and the `trustedKeys` of `LEDGER_CHECKPOINT_KEYS`, one per line or
 *   comma-separated, empty when unset: the sink's own `keys/` are trusted then).
 * @throws ConfigError
 */
export function loadConsoleConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(consoleEnv, env);
  return {
    env: e.SETTLE_ENV,
    logLevel: e.LOG_LEVEL,
    readyFile: e.SETTLE_READY_FILE,
    /** Longest a graceful shutdown may take, milliseconds. */
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE, preparedStatements: e.DATABASE_PREPARED_STATEMENTS },
    http: { host: e.CONSOLE_HOST, port: e.CONSOLE_PORT },
    session: {
      ttlMs: e.CONSOLE_SESSION_TTL_MS,
      secureCookies: e.CONSOLE_SECURE_COOKIES === undefined ? e.SETTLE_ENV === 'production' : e.CONSOLE_SECURE_COOKIES === 'true',
    },
    ingestion: { url: e.CONSOLE_INGESTION_URL, adminApiKey: e.CONSOLE_INGESTION_ADMIN_API_KEY },
    /** How long a proposal waits for its approval, milliseconds. */
    proposalTtlMs: e.CONSOLE_PROPOSAL_TTL_MS,
    dispatcher:
      e.CONSOLE_DISPATCHER_URL !== undefined && e.CONSOLE_DISPATCHER_ADMIN_API_KEY !== undefined
        ? { url: e.CONSOLE_DISPATCHER_URL, adminApiKey: e.CONSOLE_DISPATCHER_ADMIN_API_KEY }
        : null,
    kafka: kafkaOf(e.KAFKA_BROKERS, e.SETTLE_TOPIC_PREFIX),
    ledgerStore: toLedgerStore(e),
    ledger: {
      store: e.LEDGER_STORE,
      verifyIntervalMs: e.CONSOLE_LEDGER_VERIFY_INTERVAL_MS,
      fullVerifyIntervalMs: e.CONSOLE_LEDGER_FULL_VERIFY_INTERVAL_MS,
    },
    ledgerCheckpoints: {
      dir: e.LEDGER_CHECKPOINT_DIR ?? null,
      origin: e.LEDGER_ORIGIN,
      trustedKeys: (e.LEDGER_CHECKPOINT_KEYS ?? '')
        .split(/[\n,]/u)
        .map((k) => k.trim())
        .filter(Boolean),
    },
  };
}
export type ConsoleConfig = ReturnType<typeof loadConsoleConfig>;

/** Configuration of the console's command lines (creating users): its database only. @throws ConfigError */
export function loadConsoleCliConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(consoleCliEnv, env);
  return { logLevel: e.LOG_LEVEL, database: { url: e.DATABASE_URL, preparedStatements: e.DATABASE_PREPARED_STATEMENTS } };
}

export { sharedEnv };
