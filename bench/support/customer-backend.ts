import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../scripts/ops/clients.js';
import { createTestDatabase, infra, freePort } from '@settle/testing';

/** The example customer backend of a benchmark, running. */
export interface BenchCustomerBackend {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  pid: number;
  /** Stops the process (SIGTERM, waiting for its exit) and drops its database. */
  stop(): Promise<void>;
}

/**
 * Starts the example customer backend (examples/customer-backend: the receiver kit installed
 * from its packed tarball) on a free port, with a database of its own on the benchmarks'
 * PostgreSQL, and waits until it listens.
 *
 * @param dir - a scratch folder for its ready file.
 * @param env - its configuration beyond the port, the database, the secret and the ready file
 *   (`RECEIVER_STORE`, `EXAMPLE_RUN_DELAY_MS`, ...).
 * @throws when the kit was not packed and installed (scripts/local/receiver-kit.sh), or the
 *   backend does not listen within 30 s.
 */
export async function startCustomerBackend(dir: string, secret: string, env: Record<string, string> = {}): Promise<BenchCustomerBackend> {
  const example = fileURLToPath(
    new URL(import.meta.url.includes('/dist/') ? '../../../examples/customer-backend' : '../../examples/customer-backend', import.meta.url),
  );
  if (!existsSync(join(example, 'node_modules/@settle/receiver/package.json')))
    throw new Error('run scripts/local/receiver-kit.sh first (scripts/local/bench.sh does)');
  const database = await createTestDatabase('settle_bench_kit', infra.benchAdminDatabaseUrl);
  const port = await freePort();
  const ready = join(dir, `customer-${port}.ready`);
  const child = spawn(process.execPath, ['src/server.js'], {
    cwd: example,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL: database.url,
      SETTLE_WEBHOOK_SECRETS: secret,
      SETTLE_READY_FILE: ready,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await database.drop();
  };
  try {
    await waitUntil('the customer backend', 30_000, async () => {
      if (child.exitCode !== null) throw new Error(`the customer backend exited with ${child.exitCode}`);
      return existsSync(ready) ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop };
}
