/**
 * A customer backend receiving Settle's entitlement webhooks with @settle/receiver, on
 * node:http and PostgreSQL (the kit's store too, by default; Redis with RECEIVER_STORE=redis).
 * Configuration: see config.js and the README.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { createReceiver } from '@settle/receiver';
import { PostgresReceiverStore } from '@settle/receiver/postgres';
import { RedisReceiverStore } from '@settle/receiver/redis';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { answerTimes } from './answers.js';
import { BUSINESS_DDL, recordRun } from './business.js';
import { loadConfig } from './config.js';
import { routes } from './routes.js';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

const logger = pino({ level: config.logLevel });
// Idle connections are kept five minutes, not pg-pool's 10 s: under a steady load the ones a burst
// opened would otherwise be closed and opened again about once a second (a new PostgreSQL backend
// each time).
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20, connectionTimeoutMillis: 1_000, idleTimeoutMillis: 300_000 });
// When PostgreSQL ends a connection (a restart, a failover, an administrator), pg emits 'error' on
// its client. The pool forwards it for an idle client, but not for one checked out (a transaction
// in progress): without a listener on the client itself, that is an uncaught exception, which
// ends the process. The client is unusable afterwards; its queries reject and the pool drops it.
pool.on('connect', (client) => {
  client.on('error', (error) => logger.warn({ err: error }, 'database connection lost'));
});
pool.on('error', () => undefined); // an idle client's error: already logged by its own listener

const redis = config.store === 'redis' ? new Redis(config.redisUrl) : undefined;
const store = redis
  ? new RedisReceiverStore(redis, {
      keyPrefix: config.redisKeyPrefix,
      persistence: config.redisPersistence,
      logger: logger.child({ component: 'settle-receiver' }),
    })
  : // Direct connections to PostgreSQL: the kit's statements are prepared once per connection.
    new PostgresReceiverStore(pool, { preparedStatements: true });
// With the Redis store, handlers get no transaction: the run's row goes through the pool (at least once).
const handler = recordRun({ failFirstRuns: config.failFirstRuns, runDelayMs: config.runDelayMs, pool });
const answers = answerTimes();
let receiver;
try {
  receiver = createReceiver({
    secrets: config.webhookSecrets,
    store,
    handlers: { subscription_started: handler, subscription_renewed: handler, subscription_revoked: handler, subscription_reinstated: handler },
    retry: { maxAttempts: config.retryMaxAttempts, initialDelayMs: config.retryInitialDelayMs },
    logger: logger.child({ component: 'settle-receiver' }),
    observe: (answer) => answers.observe(answer),
  });
} catch (error) {
  // A ReceiverConfigError names the bad secret's position in SETTLE_WEBHOOK_SECRETS, never its value.
  logger.fatal({ err: error }, 'invalid receiver configuration');
  await pool.end();
  process.exit(1);
}

// The kit's tables (events, access) and the example's own, idempotent; the Redis store's check
// that its server keeps what it acknowledges (README of the kit, "Redis").
try {
  if (store instanceof PostgresReceiverStore) await store.migrate();
  await receiver.ready();
  await pool.query(BUSINESS_DDL);
} catch (error) {
  // A ReceiverStoreNotDurableError says what to change in the Redis server's configuration.
  logger.fatal({ err: error }, 'cannot start');
  await pool.end();
  redis?.disconnect();
  process.exit(1);
}

const server = http.createServer(routes({ receiver, pool, logger, answers }));
server.listen(config.port, config.host, () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  receiver.start();
  logger.info({ port, secrets: config.webhookSecrets.length }, 'listening');
  if (config.readyFile) writeFileSync(config.readyFile, String(process.pid));
});

async function shutdown(signal) {
  logger.info({ signal }, 'shutting down');
  server.close();
  await receiver.stop();
  await pool.end();
  redis?.disconnect();
  process.exit(0);
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
