import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { freePort } from '@settle/testing';
import { startCustomerBackend } from './support/customer-backend.js';
import { percentile } from './support/proc.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one store's run measured. */
interface AccessResult {
  store: string;
  /** Events recorded and not yet processed when the measured ones were sent (the backlog they sat behind). */
  waiting: number;
  measured: number;
  /** From each 200 to the first `GET /access` that showed the event's expiry, milliseconds. */
  visible: { p50: number; p99: number; max: number };
  /** `GET /access` answers needed per event until its expiry showed (1: the first read after the 200). */
  maxReads: number;
  /** One `GET /access` of an access already there: the read's own round trip (the baseline), milliseconds. */
  read: { p50: number; p99: number };
}

/**
 * The receiver kit's promise that access does not wait for business logic (its README,
 * "Processing guarantees"), measured from outside on the example customer backend (the kit
 * from its packed tarball) with a handler that takes `handlerMs` per event
 * (`EXAMPLE_RUN_DELAY_MS`) and so builds a backlog: `backlog` signed events are posted at once
 * (open loop, every one answered 200), then `measured` more, one after the other, each to a new
 * user; after each 200 the backend's `GET /access/:user/:entitlement` is read until it shows the
 * event's expiry. The baseline, in the same run: the same read of an access already there.
 *
 * Stores: PostgreSQL (the benchmarks' cluster), and Redis, a server of the benchmark's own with
 * the configuration the kit's README asks for (`appendonly yes`, `appendfsync always`,
 * `noeviction`), skipped with a reason where no `redis-server` binary exists.
 */
export async function kitAccessPhases(options: { backlog: number; measured: number; handlerMs: number }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'settle-bench-kit-access-'));
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const results: AccessResult[] = [];
  try {
    results.push(await measureStore(dir, secret, 'PostgreSQL', {}, options));
    if (spawnSync('redis-server', ['--version']).status === 0) {
      const redis = await startRedis(dir);
      try {
        results.push(await measureStore(dir, secret, 'Redis (appendfsync always)', { RECEIVER_STORE: 'redis', REDIS_URL: redis.url }, options));
      } finally {
        await redis.stop();
      }
    } else {
      console.log('Redis store: skipped, no redis-server binary on this machine');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\naccess after the 200, a handler of ${options.handlerMs} ms per event (EXAMPLE_RUN_DELAY_MS), ${options.backlog} events posted first, then ${options.measured} measured one by one`,
  );
  console.log(
    '| store | events waiting behind the handler | measured | 200 to access visible p50 / p99 / max ms | reads needed (max) | one GET /access, baseline p50 / p99 ms |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.store} | ${r.waiting} | ${r.measured} | ${r.visible.p50.toFixed(2)} / ${r.visible.p99.toFixed(2)} / ${r.visible.max.toFixed(2)} | ${r.maxReads} | ${r.read.p50.toFixed(2)} / ${r.read.p99.toFixed(2)} |`,
    );
  }
}

async function measureStore(
  dir: string,
  secret: string,
  store: string,
  env: Record<string, string>,
  options: { backlog: number; measured: number; handlerMs: number },
): Promise<AccessResult> {
  const backend = await startCustomerBackend(dir, secret, { ...env, EXAMPLE_RUN_DELAY_MS: String(options.handlerMs) });
  const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 });
  const signer = new Webhook(secret);
  const post = async (userId: string, expiresAt: string) => {
    const id = randomUUID();
    const at = new Date();
    const body = JSON.stringify({
      event_id: id,
      event: 'subscription_started',
      entitlement: 'pro',
      user_id: userId,
      expires_at: expiresAt,
      settled_at: at.toISOString(),
    });
    const answer = await request(`${backend.url}/webhook/settle`, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signer.sign(id, at, body),
      },
      body,
    });
    await answer.body.dump();
    if (answer.statusCode !== 200) throw new Error(`the kit answered ${answer.statusCode}`);
  };
  const access = async (userId: string) => {
    const answer = await request(`${backend.url}/access/${userId}/pro`, { dispatcher: agent });
    const body = (await answer.body.json()) as { expires_at?: string };
    return answer.statusCode === 200 ? body.expires_at : undefined;
  };
  const expiry = (i: number) => new Date(Date.UTC(2027, 0, 1) + i * 60_000).toISOString();
  try {
    await Promise.all(Array.from({ length: options.backlog }, (_, i) => post(`user-backlog-${i}`, expiry(i))));
    const stats = (await (await fetch(`${backend.url}/stats`)).json()) as { events: Record<string, number> };
    const waiting = (stats.events.pending ?? 0) + (stats.events.processing ?? 0);
    const visible: number[] = [];
    let maxReads = 0;
    for (let i = 0; i < options.measured; i++) {
      const user = `user-measured-${i}`;
      const expected = expiry(options.backlog + i);
      await post(user, expected);
      const answered = performance.now();
      let reads = 0;
      for (const deadline = answered + 300_000; ;) {
        reads += 1;
        if ((await access(user)) === expected) break;
        if (performance.now() > deadline) throw new Error(`${user}'s access not visible 300 s after its 200`);
        await sleep(1);
      }
      visible.push(performance.now() - answered);
      maxReads = Math.max(maxReads, reads);
    }
    const reads: number[] = [];
    for (let i = 0; i < options.measured; i++) {
      const started = performance.now();
      await access(`user-backlog-${i % options.backlog}`);
      reads.push(performance.now() - started);
    }
    visible.sort((a, b) => a - b);
    reads.sort((a, b) => a - b);
    return {
      store,
      waiting,
      measured: options.measured,
      visible: { p50: percentile(visible, 50), p99: percentile(visible, 99), max: visible.at(-1)! },
      maxReads,
      read: { p50: percentile(reads, 50), p99: percentile(reads, 99) },
    };
  } finally {
    await agent.close();
    await backend.stop();
  }
}

/** A Redis server of the benchmark's own, configured as the kit's README asks. */
async function startRedis(dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--maxmemory-policy',
      'noeviction',
      '--save',
      '',
    ],
    { stdio: 'ignore', cwd: dir },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const probe = new Redis({ port, host: '127.0.0.1', retryStrategy: (n) => (n > 100 ? null : 50) });
  probe.on('error', () => undefined); // refused until the server listens; ping() waits for it
  await probe.ping();
  probe.disconnect();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
