import { createHash, randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret } from '@settle/config';
import type { Topics } from '@settle/messaging';
import { createPool, migrateSchema } from '@settle/platform';
import { CredentialsVault, generateMasterKey, loadMasterKeyRing, PostgresVaultStore, vaultMigrations } from '@settle/vault';
import pg from 'pg';
import { DispatcherClient, IngestionClient, SandboxClient } from '../../../scripts/ops/clients.js';
import { nodeOptionsOf, ROOT, spawnApp, spawnProcess, type AppProcess } from './apps.js';
import { createTestDatabase, infra, uniqueTopicPrefix } from './infra.js';
import { publishedMessages, type PublishedMessage } from './published.js';

/** A free TCP port on loopback, outside the ephemeral range (see {@link freePorts}). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/** Lowest port {@link freePorts} hands out: above the services' fixed ports (5432, 15432, 19092, ...). */
export const LISTEN_PORTS_FROM = 20_000;

/**
 * The kernel's ephemeral port range (Linux `net.ipv4.ip_local_port_range`), from which it
 * picks the local port of every outgoing connection; `null` where it cannot be read.
 */
export function ephemeralPortRange(): { low: number; high: number } | null {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && Number.isInteger(high) ? { low: low!, high: high! } : null;
  } catch {
    return null;
  }
}

function listenOn(port: number): Promise<ReturnType<typeof createServer> | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(null) : reject(error)));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * `count` distinct free loopback ports for processes a test starts. Each is taken at random
 * below the kernel's ephemeral range, where no outgoing connection gets its local port: a port
 * from that range (`listen(0)`) was free when asked for but could be taken by any connection
 * the machine opened before the process bound it (a chaos bed's ingestion once found its port
 * taken that way). Every listener is held open until all are bound, so two calls in a row can
 * never hand out the same port. Where the range cannot be read, the kernel picks (`listen(0)`).
 *
 * @throws when no free port is found after many tries.
 */
export async function freePorts(count: number): Promise<number[]> {
  const range = ephemeralPortRange();
  const servers: Array<ReturnType<typeof createServer>> = [];
  try {
    if (range === null || range.low - LISTEN_PORTS_FROM < 1_000) {
      for (let i = 0; i < count; i += 1) servers.push((await listenOn(0))!);
    } else {
      for (let tries = 0; servers.length < count; tries += 1) {
        if (tries >= 1_000) throw new Error(`no free loopback port between ${LISTEN_PORTS_FROM} and ${range.low - 1} after ${tries} tries`);
        const server = await listenOn(LISTEN_PORTS_FROM + randomInt(range.low - LISTEN_PORTS_FROM));
        if (server) servers.push(server);
      }
    }
    return servers.map((server) => {
      const address = server.address();
      return typeof address === 'object' && address ? address.port : 0;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** The five apps, running from the compiled `dist/` against the real local infrastructure. */
export interface RunningStack {
  ingestion: IngestionClient;
  sandbox: SandboxClient;
  ingestionUrl: string;
  /** Prometheus endpoints of the worker apps (`GET .../metrics`; the dispatcher's is on its HTTP port). */
  metricsUrls: { verifier: string; 'ledger-projector': string; sweeper: string; dispatcher: string };
  /** The dispatcher's admin API (endpoints, deliveries), with the admin key. */
  dispatcher: DispatcherClient;
  dispatcherUrl: string;
  /** The ledger projector's checkpoint sink: signed checkpoints, and the public keys in `keys/` (docs/ledger.md, "Where checkpoints go"). */
  checkpointDir: string;
  /** Admin API key (manual reconciliation). */
  adminKey: string;
  sandboxUrl: string;
  /** Every provider credential of this run (the sandbox checks them; the vault holds them). */
  secrets: ProviderSecrets;
  /** Secret the sandbox signs webhooks with. */
  paystackSecret: string;
  topicPrefix: string;
  db: pg.Pool;
  databaseUrl: string;
  /** Master keys of ingestion's webhook vault (to seed rotations in tests). */
  webhookMasterKeys: string;
  /**
   * Master keys of the privacy vault (`SETTLE_PRIVACY_VAULT_MASTER_KEYS`, docs/privacy.md,
   * "Crypto-shredding"): the verifier seals unmatched payments' payer email and phone under the
   * subjects' keys they wrap. The console, when asked for, is given the same ring; give it to a
   * test that opens or erases them (`openSubjectKeys` over `databaseUrl`).
   */
  privacyMasterKeys: string;
  /** The log of an app's first instance, or of an added instance by its name (`verifier-2`). */
  logs(app: string): string;
  /**
   * What an app published on a topic: the records on it plus the rows still waiting in the
   * app's outbox for it, one per event id (see `publishedMessages`).
   */
  published(outboxSchema: string, topic: keyof Topics): Promise<PublishedMessage[]>;
  /** The example customer backend, when asked for. */
  customer: RunningCustomer | null;
  /** The operations console's base URL, when asked for (`StackOptions.console`). */
  consoleUrl: string | null;
  /** Apps whose process has exited (with its exit code or signal), in no particular order. */
  exited(): Array<{ app: StackApp | 'console'; code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops one app (SIGTERM, as an operator would; resolves once it exited); `exited()` does not report it. */
  stopApp(app: StackApp): Promise<void>;
  /** Starts a stopped app again with the environment it first had; resolves once it is ready. */
  startApp(app: StackApp): Promise<void>;
  stop(): Promise<void>;
  /** The Kafka brokers the apps use (`StackOptions.kafkaBrokers`, else the local infrastructure's). */
  kafkaBrokers: string[];
  /** The schema registry the apps use (`StackOptions.registryUrl`, else the local infrastructure's). */
  registryUrl: string;
  /** Signals, restarts and extra instances of the apps (fault injection). */
  control: StackControl;
  /** Every secret of this run by name (keys, webhook and endpoint secrets, master keys): none may appear in a log. */
  secretValues(): Record<string, string>;
}

/** Apps that run as consumer-group members and may have several instances. */
export type ScalableApp = 'verifier' | 'ledger-projector' | 'sweeper' | 'dispatcher';

/**
 * Process control of a running stack. An instance is named by its app (the first one) or
 * `<app>-<n>` for the ones added with `addInstance`; each logs to its own file.
 */
export interface StackControl {
  /** The pid of every instance running now, by instance name. */
  pids(): Record<string, number>;
  /** The instance names of an app, running or not, the first one first. */
  instances(app: StackApp): string[];
  /** Sends a signal (SIGSTOP, SIGCONT, SIGKILL, ...) to an instance and returns at once. */
  signal(instance: string, signal: NodeJS.Signals): void;
  /** How an instance's current process ended (exit code or signal), `null` while it runs. */
  exit(instance: string): { code: number | null; signal: NodeJS.Signals | null } | null;
  /** Sends `signal` (default SIGKILL) and resolves once the instance has exited. */
  kill(instance: string, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts an instance again with the environment it had (killing it first when it still
   * runs), and resolves once it is ready.
   */
  restart(instance: string): Promise<void>;
  /**
   * Starts one more instance of a worker in the same consumer group, with the same environment
   * but its own metrics or admin port; resolves with its name once it is ready.
   *
   * @param options.distDir - run another build of the app (a rolling upgrade's other version);
   *   default the repository's `dist/`.
   */
  addInstance(app: ScalableApp, options?: { distDir?: string }): Promise<string>;
  /**
   * Ends an added instance with `signal` (default SIGTERM: it leaves its consumer group in
   * order) and forgets it: it is no longer restarted, listed or stopped.
   */
  remove(instance: string, signal?: NodeJS.Signals): Promise<void>;
}

const APPS = ['provider-sandbox', 'ingestion', 'verifier', 'ledger-projector', 'sweeper', 'dispatcher'] as const;

/** The apps a stack starts by default, in start order. */
export const STACK_APPS: readonly StackApp[] = APPS;

/** One of the apps of the stack. */
export type StackApp = (typeof APPS)[number];

/** Provider credentials of one run, random each time. */
export interface ProviderSecrets {
  paystackSecret: string;
  stripeSecret: string;
  stripeWebhookSecret: string;
  flutterwaveSecret: string;
  flutterwaveHash: string;
  mpesaConsumerKey: string;
  mpesaConsumerSecret: string;
  mpesaPassKey: string;
  mpesaCallbackToken: string;
}

/**
 * Stores the run's webhook signing secrets in ingestion's own vault (schema `webhook_vault`,
 * its own master keys), as an operator would.
 */
export async function seedWebhookVault(
  databaseUrl: string,
  masterKeys: string,
  s: Pick<ProviderSecrets, 'paystackSecret' | 'stripeWebhookSecret' | 'flutterwaveHash' | 'mpesaCallbackToken'>,
  names: { suffix?: string } = {},
): Promise<void> {
  const pool = createPool(databaseUrl, 2);
  try {
    await migrateSchema(pool, vaultMigrations('webhook_vault'));
    const vault = new CredentialsVault(new PostgresVaultStore(pool, 'webhook_vault'), loadMasterKeyRing({ SETTLE_VAULT_MASTER_KEYS: masterKeys }));
    const put = (provider: string, name: string, value: string) =>
      vault.put({ provider, account: 'default', name: `${name}${names.suffix ?? ''}` }, new Secret(value));
    await put('paystack', 'webhook_secret', s.paystackSecret);
    await put('stripe', 'webhook_secret', s.stripeWebhookSecret);
    await put('flutterwave', 'webhook_secret', s.flutterwaveHash);
    await put('mpesa', 'callback_token', s.mpesaCallbackToken);
  } finally {
    await pool.end();
  }
}

/** Stores the run's provider credentials in the vault of a fresh database, as an operator would. */
async function seedVault(databaseUrl: string, masterKeys: string, s: ProviderSecrets): Promise<void> {
  const pool = createPool(databaseUrl, 2);
  try {
    await migrateSchema(pool, vaultMigrations());
    const vault = new CredentialsVault(new PostgresVaultStore(pool), loadMasterKeyRing({ SETTLE_VAULT_MASTER_KEYS: masterKeys }));
    const put = (provider: string, name: string, value: string) => vault.put({ provider, account: 'default', name }, new Secret(value));
    await put('paystack', 'secret_key', s.paystackSecret);
    await put('stripe', 'secret_key', s.stripeSecret);
    await put('flutterwave', 'secret_key', s.flutterwaveSecret);
    await put('mpesa', 'consumer_key', s.mpesaConsumerKey);
    await put('mpesa', 'consumer_secret', s.mpesaConsumerSecret);
    await put('mpesa', 'passkey', s.mpesaPassKey);
  } finally {
    await pool.end();
  }
}

/** Options of {@link startStack}. */
export interface StackOptions {
  /** The sweeper's inactivity window, milliseconds (45 000 in production). */
  inactivityMs: number;
  /**
   * `test` (default): timings shortened so that the suite is fast (the sweeper's tick and
   * re-checks, the dispatcher's retry schedule, poll and attempt time-out, the providers'
   * time-out and retries, the webhook secrets' refresh), `SETTLE_ENV=test`. `up`: every app with
   * the settings `./settle up` gives it (its own defaults, `SETTLE_ENV=development`), for a
   * benchmark that measures the stack as users run it; only `inactivityMs` is still applied.
   */
  settings?: 'test' | 'up';
  logLevel?: string;
  /** Automatic re-checks before manual review (default 30). */
  recheckLimit?: number;
  /**
   * Administrative connection to the PostgreSQL server the stack's database is created on
   * (for example a cluster of the test's own, `scripts/harness/postgres.ts`); default the
   * local infrastructure's.
   */
  adminDatabaseUrl?: string;
  /** Extra environment per app, applied over the stack's own (tuning for one test). */
  env?: Partial<Record<StackApp, NodeJS.ProcessEnv>>;
  /**
   * Also run the example customer backend (examples/customer-backend, the receiver kit from its
   * packed tarball: scripts/local/receiver-kit.sh) with a database of its own and an endpoint
   * registered for it; `env` is added to its environment.
   */
  customerBackend?: { env?: NodeJS.ProcessEnv };
  /**
   * Also run the operations console (apps/console) against the stack's database, ingestion's
   * admin API, the dispatcher's (its Deliveries pages) and the stack's Kafka (its overview);
   * `env` is added to its environment. Its URL is `consoleUrl`.
   */
  console?: { env?: NodeJS.ProcessEnv };
  /**
   * The apps started with the stack (default all six); the others can still be added as
   * instances (`control.addInstance`) with the environment the stack gives them.
   */
  apps?: readonly StackApp[];
  /** Kafka brokers of the stack's own (`scripts/harness/broker.ts`); default the local infrastructure's. */
  kafkaBrokers?: string[];
  /** Schema registry URL (ccompat API) of the stack's own; default the local infrastructure's. */
  registryUrl?: string;
}

/** The example customer backend of a stack. */
export interface RunningCustomer {
  url: string;
  endpointId: string;
  /** The endpoint's signing secret, as the dispatcher showed it at registration. */
  secret: string;
  /** Its own database (the kit's tables and its `entitlement_runs`). */
  db: pg.Pool;
  /** That database's name. */
  databaseName: string;
  pid: number;
  logs(): string;
}

/**
 * Starts every app as its own process with a fresh database and topic prefix, and waits for
 * each to report ready. Timings are shortened so the suite is fast: the sweeper's
 * inactivity window is a setting, not a constant.
 */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  for (const app of APPS) {
    if (!existsSync(join(ROOT, 'dist/apps', app, 'src/main.js'))) {
      throw new Error(`dist/apps/${app} is missing: run "npm run build" (scripts/local/test.sh does) before end-to-end tests`);
    }
  }
  const kafkaBrokers = options.kafkaBrokers ?? infra.kafkaBrokers;
  const registryUrl = options.registryUrl ?? infra.registryUrl;
  const database = await createTestDatabase('settle_e2e', options.adminDatabaseUrl);
  const topicPrefix = uniqueTopicPrefix('e2e');
  const hex = (n: number) => randomBytes(n).toString('hex');
  const apiKey = `sk_settle_${hex(24)}`;
  const adminKey = `sk_admin_${hex(24)}`;
  const secrets: ProviderSecrets = {
    paystackSecret: `sk_test_${hex(20)}`,
    stripeSecret: `sk_test_${hex(24)}`,
    stripeWebhookSecret: `whsec_${randomBytes(32).toString('base64')}`,
    flutterwaveSecret: `FLWSECK_TEST-${hex(16)}-X`,
    flutterwaveHash: hex(16),
    mpesaConsumerKey: hex(16),
    mpesaConsumerSecret: hex(16),
    mpesaPassKey: hex(32),
    mpesaCallbackToken: hex(24),
  };
  const masterKeys = `v1:${generateMasterKey().toString('base64')}`;
  const webhookMasterKeys = `v1:${generateMasterKey().toString('base64')}`;
  await seedVault(database.url, masterKeys, secrets);
  await seedWebhookVault(database.url, webhookMasterKeys, secrets);
  const paystackSecret = secrets.paystackSecret;
  const [ingestionPort, sandboxPort] = (await freePorts(2)) as [number, number];
  const [verifierMetricsPort, projectorMetricsPort, sweeperMetricsPort, dispatcherPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const endpointMasterKeys = `v1:${generateMasterKey().toString('base64')}`;
  const ledgerMasterKeys = `v1:${generateMasterKey().toString('base64')}`;
  const privacyMasterKeys = `v1:${generateMasterKey().toString('base64')}`;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const hooks = `http://127.0.0.1:${ingestionPort}/v1/webhooks`;
  const dir = mkdtempSync(join(tmpdir(), 'settle-e2e-'));
  // The projector's checkpoint sink (docs/ledger.md, "Where checkpoints go"), made as `./settle up` makes it.
  const checkpointDir = join(dir, 'ledger-checkpoints');
  mkdirSync(checkpointDir);
  const asUp = options.settings === 'up';
  /** A test's shortened timing, or nothing (the app's own default) for a stack with `./settle up`'s settings. */
  const fast = (settings: NodeJS.ProcessEnv): NodeJS.ProcessEnv => (asUp ? {} : settings);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SETTLE_ENV: asUp ? 'development' : 'test',
    LOG_LEVEL: options.logLevel ?? 'info',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    KAFKA_BROKERS: kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: registryUrl,
    DATABASE_URL: database.url,
    SETTLE_TOPIC_PREFIX: topicPrefix,
  };
  // Each app gets only the secrets it uses; only the verifier holds the vault's master key.
  const appEnv: Record<StackApp, NodeJS.ProcessEnv> = {
    'provider-sandbox': {
      NODE_OPTIONS: nodeOptionsOf('provider-sandbox'),
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${ingestionPort}/v1/webhooks/paystack`,
      ...fast({ SANDBOX_TIMEOUT_HOLD_MS: '3000' }),
      PAYSTACK_SECRET_KEY: secrets.paystackSecret,
      STRIPE_SECRET_KEY: secrets.stripeSecret,
      STRIPE_WEBHOOK_SECRET: secrets.stripeWebhookSecret,
      FLUTTERWAVE_SECRET_KEY: secrets.flutterwaveSecret,
      FLUTTERWAVE_SECRET_HASH: secrets.flutterwaveHash,
      MPESA_CONSUMER_KEY: secrets.mpesaConsumerKey,
      MPESA_CONSUMER_SECRET: secrets.mpesaConsumerSecret,
      MPESA_PASSKEY: secrets.mpesaPassKey,
      SANDBOX_STRIPE_WEBHOOK_URL: `${hooks}/stripe`,
      SANDBOX_FLUTTERWAVE_WEBHOOK_URL: `${hooks}/flutterwave`,
      SANDBOX_MPESA_CALLBACK_URL: `${hooks}/mpesa/${secrets.mpesaCallbackToken}`,
    },
    ingestion: {
      INGESTION_PORT: String(ingestionPort),
      SETTLE_API_KEY_SHA256: createHash('sha256').update(apiKey).digest('hex'),
      SETTLE_ADMIN_API_KEY_SHA256: createHash('sha256').update(adminKey).digest('hex'),
      SETTLE_VAULT_MASTER_KEYS: webhookMasterKeys,
      ...fast({ WEBHOOK_SECRETS_REFRESH_MS: '500' }),
    },
    verifier: {
      METRICS_PORT: String(verifierMetricsPort),
      SETTLE_VAULT_MASTER_KEYS: masterKeys,
      // The privacy vault (the customers' subject keys), under master keys of its own.
      SETTLE_PRIVACY_VAULT_MASTER_KEYS: privacyMasterKeys,
      PAYSTACK_BASE_URL: sandboxUrl,
      STRIPE_BASE_URL: sandboxUrl,
      FLUTTERWAVE_BASE_URL: sandboxUrl,
      MPESA_BASE_URL: sandboxUrl,
      ...fast({ PROVIDER_TIMEOUT_MS: '1000', PROVIDER_RETRY_INITIAL_DELAY_MS: '50', PROVIDER_RETRY_MAX_DELAY_MS: '400' }),
    },
    'ledger-projector': {
      METRICS_PORT: String(projectorMetricsPort),
      // Its own vault (the ledger's checkpoint key), under master keys no other app holds.
      SETTLE_VAULT_MASTER_KEYS: ledgerMasterKeys,
      LEDGER_CHECKPOINT_DIR: checkpointDir,
      ...fast({ LEDGER_CHECKPOINT_INTERVAL_MS: '1000' }),
    },
    sweeper: {
      METRICS_PORT: String(sweeperMetricsPort),
      SWEEPER_INACTIVITY_MS: String(options.inactivityMs),
      // The production schedule scaled down to the test's window: first re-check after one
      // window, doubling up to four windows, and the limit as asked (30 by default).
      ...fast({
        SWEEPER_TICK_MS: '200',
        SWEEPER_RECHECK_INITIAL_DELAY_MS: String(options.inactivityMs),
        SWEEPER_RECHECK_MAX_DELAY_MS: String(options.inactivityMs * 4),
        SWEEPER_RECHECK_LIMIT: String(options.recheckLimit ?? 30),
      }),
    },
    dispatcher: {
      DISPATCHER_PORT: String(dispatcherPort),
      SETTLE_ADMIN_API_KEY_SHA256: createHash('sha256').update(adminKey).digest('hex'),
      // The merchant's key fetches receipts' proofs (docs/ledger.md, "Receipts").
      SETTLE_API_KEY_SHA256: createHash('sha256').update(apiKey).digest('hex'),
      // Its own vault (endpoint secrets), under master keys no other app holds.
      SETTLE_VAULT_MASTER_KEYS: endpointMasterKeys,
      // The production schedule (5 s ... 14 h) shortened to the test's scale.
      ...fast({ DISPATCHER_RETRY_SCHEDULE: '200ms,400ms,800ms,1600ms', DISPATCHER_ATTEMPT_TIMEOUT_MS: '2000', DISPATCHER_POLL_INTERVAL_MS: '100' }),
    },
  };
  const cleanups: Array<() => Promise<void>> = [];
  // Connections lost to the final DROP DATABASE, or to a test restarting the server, are
  // reported to nobody: the pool opens new ones on next use.
  const db = createPool(database.url, 4);
  const envOf = (app: StackApp): NodeJS.ProcessEnv => ({ ...env, ...appEnv[app], ...options.env?.[app] });
  const apps = options.apps ?? APPS;
  const started = await Promise.allSettled(apps.map((app) => spawnApp(app, envOf(app), dir)));
  const processes = new Map<StackApp | 'console', AppProcess>();
  /** Instances added by `control.addInstance`, with their app, environment and build. */
  const extra = new Map<string, { app: StackApp; env: NodeJS.ProcessEnv; process: AppProcess; distDir?: string }>();
  started.forEach((result, i) => {
    if (result.status === 'fulfilled') processes.set(apps[i]!, result.value);
  });
  const logs = (app: string) => (processes.get(app as StackApp) ?? extra.get(app)?.process)?.logs() ?? '';
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await Promise.all([...processes.values(), ...[...extra.values()].map((e) => e.process)].map((app) => app.stop()));
    await db.end();
    await database.drop();
    // SETTLE_KEEP_TEST_LOGS=1 keeps every app's log (`<app>.log`) for reading after a failure.
    if (process.env.SETTLE_KEEP_TEST_LOGS === '1') console.warn(`[stack] logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const dispatcher = new DispatcherClient(`http://127.0.0.1:${dispatcherPort}`, adminKey);
  let customer: RunningCustomer | null = null;
  if (options.customerBackend) {
    try {
      customer = await startCustomerBackend(dispatcher, dir, options.adminDatabaseUrl, options.customerBackend.env ?? {}, cleanups);
    } catch (error) {
      await stop();
      throw error;
    }
  }
  const ingestionUrl = `http://127.0.0.1:${ingestionPort}`;
  let consoleUrl: string | null = null;
  if (options.console) {
    try {
      const consolePort = await freePort();
      const consoleEnv: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SETTLE_ENV: asUp ? 'development' : 'test',
        LOG_LEVEL: options.logLevel ?? 'info',
        DATABASE_URL: database.url,
        CONSOLE_PORT: String(consolePort),
        CONSOLE_INGESTION_URL: `http://127.0.0.1:${ingestionPort}`,
        CONSOLE_INGESTION_ADMIN_API_KEY: adminKey,
        CONSOLE_DISPATCHER_URL: `http://127.0.0.1:${dispatcherPort}`,
        CONSOLE_DISPATCHER_ADMIN_API_KEY: adminKey,
        // The overview's dead letters and consumer lag: the stack's brokers and topic prefix.
        KAFKA_BROKERS: infra.kafkaBrokers.join(','),
        SETTLE_TOPIC_PREFIX: topicPrefix,
        // The verifier's privacy vault: proposals seal the persons they name, erasures destroy keys.
        SETTLE_PRIVACY_VAULT_MASTER_KEYS: privacyMasterKeys,
        ...options.console.env,
      };
      processes.set('console', await spawnApp('console', consoleEnv, dir));
      consoleUrl = `http://127.0.0.1:${consolePort}`;
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return {
    consoleUrl,
    customer,
    ingestion: new IngestionClient(ingestionUrl, apiKey),
    sandbox: new SandboxClient(`http://127.0.0.1:${sandboxPort}`),
    ingestionUrl,
    metricsUrls: {
      verifier: `http://127.0.0.1:${verifierMetricsPort}/metrics`,
      'ledger-projector': `http://127.0.0.1:${projectorMetricsPort}/metrics`,
      sweeper: `http://127.0.0.1:${sweeperMetricsPort}/metrics`,
      dispatcher: `http://127.0.0.1:${dispatcherPort}/metrics`,
    },
    dispatcher,
    dispatcherUrl: `http://127.0.0.1:${dispatcherPort}`,
    checkpointDir,
    adminKey,
    sandboxUrl,
    secrets,
    paystackSecret,
    topicPrefix,
    db,
    databaseUrl: database.url,
    webhookMasterKeys,
    privacyMasterKeys,
    logs,
    published: (outboxSchema, topic) => publishedMessages({ db, topicPrefix }, { kafkaBrokers, registryUrl }, outboxSchema, topic),
    exited: () =>
      [...processes].flatMap(([app, process]) => {
        const exit = process.exit();
        return exit ? [{ app, ...exit }] : [];
      }),
    stopApp: async (app) => {
      const process = processes.get(app);
      processes.delete(app);
      await process?.stop();
    },
    startApp: async (app) => {
      if (processes.has(app)) throw new Error(`${app} is running`);
      processes.set(app, await spawnApp(app, envOf(app), dir));
    },
    stop,
    kafkaBrokers,
    registryUrl,
    control: stackControl(processes, extra, envOf, dir),
    secretValues: () => ({
      ...secrets,
      apiKey,
      adminKey,
      masterKeys,
      webhookMasterKeys,
      endpointMasterKeys,
      ledgerMasterKeys,
      privacyMasterKeys,
      ...(customer ? { endpointSecret: customer.secret } : {}),
    }),
  };
}

/**
 * Process control over a stack's processes (its first instances) and the instances added
 * later (`extra`, named `<app>-<n>`).
 */
function stackControl(
  processes: Map<StackApp | 'console', AppProcess>,
  extra: Map<string, { app: StackApp; env: NodeJS.ProcessEnv; process: AppProcess; distDir?: string }>,
  envOf: (app: StackApp) => NodeJS.ProcessEnv,
  dir: string,
): StackControl {
  const find = (instance: string): AppProcess => {
    const process = (APPS as readonly string[]).includes(instance) ? processes.get(instance as StackApp) : extra.get(instance)?.process;
    if (!process) throw new Error(`no instance named ${instance}`);
    return process;
  };
  let added = 0;
  const control: StackControl = {
    pids: () => {
      const all: Array<[string, AppProcess]> = [...processes].filter(([app]) => app !== 'console');
      for (const [name, e] of extra) all.push([name, e.process]);
      return Object.fromEntries(all.filter(([, p]) => p.exit() === null).map(([name, p]) => [name, p.pid]));
    },
    instances: (app) => [app, ...[...extra].filter(([, e]) => e.app === app).map(([name]) => name)],
    signal: (instance, signal) => find(instance).signal(signal),
    exit: (instance) => find(instance).exit(),
    async kill(instance, signal = 'SIGKILL') {
      const process = find(instance);
      process.signal(signal);
      await process.exited();
    },
    async restart(instance) {
      const old = find(instance);
      if (old.exit() === null) await control.kill(instance);
      const added = extra.get(instance);
      if (added) {
        extra.set(instance, { ...added, process: await spawnApp(added.app, added.env, dir, 90_000, instance, added.distDir) });
        return;
      }
      const app = instance as StackApp;
      processes.set(app, await spawnApp(app, envOf(app), dir));
    },
    async addInstance(app, options = {}) {
      added += 1;
      const name = `${app}-${added + 1}`;
      const ports: NodeJS.ProcessEnv = app === 'dispatcher' ? { DISPATCHER_PORT: String(await freePort()) } : { METRICS_PORT: String(await freePort()) };
      const env = { ...envOf(app), ...ports };
      extra.set(name, {
        app,
        env,
        process: await spawnApp(app, env, dir, 90_000, name, options.distDir),
        ...(options.distDir ? { distDir: options.distDir } : {}),
      });
      return name;
    },
    async remove(instance, signal = 'SIGTERM') {
      const added = extra.get(instance);
      if (!added) throw new Error(`only added instances can be removed, not ${instance}`);
      added.process.signal('SIGCONT');
      await control.kill(instance, signal);
      extra.delete(instance);
    },
  };
  return control;
}

/**
 * Starts the example customer backend (examples/customer-backend) with a database of its own,
 * registers its endpoint with the dispatcher and hands it the secret, as an operator would.
 *
 * @throws Error when the example's dependencies are not installed (scripts/local/receiver-kit.sh) or it does not start.
 */
async function startCustomerBackend(
  dispatcher: DispatcherClient,
  dir: string,
  adminDatabaseUrl: string | undefined,
  env: NodeJS.ProcessEnv,
  cleanups: Array<() => Promise<void>>,
): Promise<RunningCustomer> {
  const example = join(ROOT, 'examples/customer-backend');
  if (!existsSync(join(example, 'node_modules/@settle/receiver/package.json'))) {
    throw new Error('examples/customer-backend has no dependencies: run scripts/local/receiver-kit.sh (scripts/local/test.sh does) first');
  }
  const database = await createTestDatabase('settle_e2e_customer', adminDatabaseUrl);
  const db = createPool(database.url, 2);
  cleanups.push(async () => {
    await db.end();
    await database.drop();
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const registered = await dispatcher.createEndpoint({ url: `${url}/webhook/settle`, description: 'example customer backend' });
  if (registered.status !== 201) throw new Error(`endpoint registration answered ${registered.status}`);
  const backend = await spawnProcess({
    name: 'customer-backend',
    script: 'src/server.js',
    cwd: example,
    env: { PATH: process.env.PATH, PORT: String(port), DATABASE_URL: database.url, SETTLE_WEBHOOK_SECRETS: registered.body.secret, ...env },
    dir,
    timeoutMs: 30_000,
  });
  cleanups.push(() => backend.stop());
  const logs = () => backend.logs();
  return {
    url,
    endpointId: registered.body.id,
    secret: registered.body.secret,
    db,
    databaseName: new URL(database.url).pathname.slice(1),
    pid: backend.pid,
    logs,
  };
}
