import { z } from 'zod';
import { Secret } from './secret.js';

/** A required, non-empty string. No silent localhost defaults for brokers or secrets. */
const required = (name: string) => z.string({ error: `${name} is required` }).trim().min(1, `${name} is required`);
const secret = (name: string) => required(name).transform((v) => new Secret(v));
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
  SETTLE_TOPIC_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/).default('settle'),
  /** Written once the app is ready (used by the stack scripts), optional. */
  SETTLE_READY_FILE: z.string().optional(),
});

/** Nested, typed configuration shared by every app (parsed once at boot). */
export interface SharedConfig {
  env: 'development' | 'test' | 'production';
  logLevel: string;
  kafka: { brokers: string[]; topicPrefix: string };
  schemaRegistry: { url: string };
  database: { url: string };
  readyFile: string | undefined;
}

export function toShared(e: z.infer<typeof sharedEnv>): SharedConfig {
  return {
    env: e.SETTLE_ENV,
    logLevel: e.LOG_LEVEL,
    kafka: {
      brokers: e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
      topicPrefix: e.SETTLE_TOPIC_PREFIX,
    },
    schemaRegistry: { url: e.SCHEMA_REGISTRY_URL },
    database: { url: e.DATABASE_URL },
    readyFile: e.SETTLE_READY_FILE,
  };
}

export const ingestionEnv = sharedEnv.extend({
  INGESTION_HOST: z.string().default('127.0.0.1'),
  INGESTION_PORT: int(3000, 0),
  /**
   * Comma-separated SHA-256 hex digests of the API keys that upstream checkout services
   * present as `Authorization: Bearer <key>`. Keys themselves are never configured.
   */
  SETTLE_API_KEY_SHA256: required('SETTLE_API_KEY_SHA256'),
  /** Paystack signs webhooks with the account's secret key (HMAC-SHA512). */
  PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY'),
  /** Largest accepted request body, bytes. */
  INGESTION_BODY_LIMIT_BYTES: int(262_144, 1024),
});

export const verifierEnv = sharedEnv.extend({
  PAYSTACK_BASE_URL: url('PAYSTACK_BASE_URL'),
  PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY'),
  /** Per-call time-out of a provider query, milliseconds. */
  PROVIDER_TIMEOUT_MS: int(5_000, 1),
  /** Attempts per verification, the first included, for 502, 504 and time-outs. */
  PROVIDER_RETRY_MAX_ATTEMPTS: int(4, 1),
  /** First backoff delay, milliseconds (exponential, with jitter). */
  PROVIDER_RETRY_INITIAL_DELAY_MS: int(200, 1),
  /** Cap of one backoff delay, milliseconds. */
  PROVIDER_RETRY_MAX_DELAY_MS: int(5_000, 1),
});

export const projectorEnv = sharedEnv;

export const sweeperEnv = sharedEnv.extend({
  /** Inactivity after which a transaction is orphaned, milliseconds (spec section 8: 45 s). */
  SWEEPER_INACTIVITY_MS: int(45_000, 1),
  /** How often due watches are looked for, milliseconds. */
  SWEEPER_TICK_MS: int(1_000, 10),
  /** Most verification requests published per tick. */
  SWEEPER_BATCH_SIZE: int(1_000, 1),
});

export const sandboxEnv = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  SANDBOX_HOST: z.string().default('127.0.0.1'),
  SANDBOX_PORT: int(3100, 0),
  /** The secret key the sandbox expects as Bearer and signs its webhooks with. */
  PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY'),
  /** Where Paystack-style webhooks are delivered (ingestion's `/v1/webhooks/paystack`). */
  SANDBOX_WEBHOOK_URL: url('SANDBOX_WEBHOOK_URL'),
  /** How long a "time out" answer holds the connection, milliseconds. */
  SANDBOX_TIMEOUT_HOLD_MS: int(30_000, 1),
  SETTLE_READY_FILE: z.string().optional(),
});
