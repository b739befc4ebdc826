import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { IngestionClient, SandboxClient, waitUntil } from '../clients.js';
import { createTestDatabase, infra, uniqueTopicPrefix } from './infra.js';

// Two levels up from scripts/harness/ (sources) or dist/scripts/harness/ (compiled).
const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../../' : '../../', import.meta.url));

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The five apps, running from the compiled `dist/` against the real local infrastructure. */
export interface RunningStack {
  ingestion: IngestionClient;
  sandbox: SandboxClient;
  ingestionUrl: string;
  sandboxUrl: string;
  /** Secret the sandbox signs webhooks with. */
  paystackSecret: string;
  topicPrefix: string;
  db: pg.Pool;
  databaseUrl: string;
  logs(app: string): string;
  stop(): Promise<void>;
}

const APPS = ['provider-sandbox', 'ingestion', 'verifier', 'ledger-projector', 'sweeper'] as const;

/**
 * Starts every app as its own process with a fresh database and topic prefix, and waits for
 * each to report ready. Timings are shortened so the suite is fast: the sweeper's
 * inactivity window is a setting, not a constant.
 */
export async function startStack(options: { inactivityMs: number; logLevel?: string }): Promise<RunningStack> {
  for (const app of APPS) {
    if (!existsSync(join(ROOT, 'dist/apps', app, 'src/main.js'))) {
      throw new Error(`dist/apps/${app} is missing: run "npm run build" (scripts/test.sh does) before end-to-end tests`);
    }
  }
  const database = await createTestDatabase('settle_e2e');
  const topicPrefix = uniqueTopicPrefix('e2e');
  const apiKey = `sk_settle_${randomBytes(24).toString('hex')}`;
  const paystackSecret = `sk_test_${randomBytes(20).toString('hex')}`;
  const [ingestionPort, sandboxPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'settle-e2e-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SETTLE_ENV: 'test',
    LOG_LEVEL: options.logLevel ?? 'info',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: infra.registryUrl,
    DATABASE_URL: database.url,
    SETTLE_TOPIC_PREFIX: topicPrefix,
    INGESTION_PORT: String(ingestionPort),
    SETTLE_API_KEY_SHA256: createHash('sha256').update(apiKey).digest('hex'),
    PAYSTACK_SECRET_KEY: paystackSecret,
    PAYSTACK_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    PROVIDER_TIMEOUT_MS: '1000',
    PROVIDER_RETRY_INITIAL_DELAY_MS: '50',
    PROVIDER_RETRY_MAX_DELAY_MS: '400',
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${ingestionPort}/v1/webhooks/paystack`,
    SANDBOX_TIMEOUT_HOLD_MS: '3000',
    SWEEPER_INACTIVITY_MS: String(options.inactivityMs),
    SWEEPER_TICK_MS: '200',
  };
  const children = new Map<string, ChildProcess>();
  const logPath = (app: string) => join(dir, `${app}.log`);
  const { openSync } = await import('node:fs');
  for (const app of APPS) {
    const out = openSync(logPath(app), 'a');
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps', app, 'src/main.js')], {
      env: { ...env, SETTLE_READY_FILE: join(dir, `${app}.ready`) },
      stdio: ['ignore', out, out],
    });
    children.set(app, child);
  }
  const logs = (app: string) => (existsSync(logPath(app)) ? readFileSync(logPath(app), 'utf8') : '');
  const stop = async () => {
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await db.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  const db = new pg.Pool({ connectionString: database.url, max: 4 });
  db.on('error', () => undefined); // idle connections closed by the final DROP DATABASE
  try {
    for (const app of APPS) {
      await waitUntil(`${app} to be ready`, 90_000, async () => {
        const child = children.get(app)!;
        if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${logs(app).slice(-3000)}`);
        return existsSync(join(dir, `${app}.ready`)) ? true : undefined;
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const ingestionUrl = `http://127.0.0.1:${ingestionPort}`;
  return {
    ingestion: new IngestionClient(ingestionUrl, apiKey),
    sandbox: new SandboxClient(`http://127.0.0.1:${sandboxPort}`),
    ingestionUrl,
    sandboxUrl: `http://127.0.0.1:${sandboxPort}`,
    paystackSecret,
    topicPrefix,
    db,
    databaseUrl: database.url,
    logs,
    stop,
  };
}
