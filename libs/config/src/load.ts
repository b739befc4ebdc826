import { z } from 'zod';
import {
  ingestionEnv,
  projectorEnv,
  sandboxEnv,
  sharedEnv,
  sweeperEnv,
  toShared,
  verifierEnv,
  type SharedConfig,
} from './schema.js';
import type { Secret } from './secret.js';

/** Configuration is invalid. Lists the offending variables, never their values. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

function parse<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return result.data;
}

/** Ingestion app configuration. @throws ConfigError */
export function loadIngestionConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(ingestionEnv, env);
  return {
    ...toShared(e),
    http: { host: e.INGESTION_HOST, port: e.INGESTION_PORT, bodyLimitBytes: e.INGESTION_BODY_LIMIT_BYTES },
    apiKeySha256: e.SETTLE_API_KEY_SHA256.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
    webhooks: { paystack: { secretKey: e.PAYSTACK_SECRET_KEY } },
  };
}
export type IngestionConfig = ReturnType<typeof loadIngestionConfig>;

/** Backoff settings for provider queries (milliseconds). */
export interface RetrySettings {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Verifier app configuration. @throws ConfigError */
export function loadVerifierConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(verifierEnv, env);
  const retry: RetrySettings = {
    maxAttempts: e.PROVIDER_RETRY_MAX_ATTEMPTS,
    initialDelayMs: e.PROVIDER_RETRY_INITIAL_DELAY_MS,
    maxDelayMs: e.PROVIDER_RETRY_MAX_DELAY_MS,
  };
  return {
    ...toShared(e),
    providers: {
      paystack: { baseUrl: e.PAYSTACK_BASE_URL, secretKey: e.PAYSTACK_SECRET_KEY as Secret },
      timeoutMs: e.PROVIDER_TIMEOUT_MS,
      retry,
    },
  };
}
export type VerifierConfig = ReturnType<typeof loadVerifierConfig>;

/** Ledger projector configuration. @throws ConfigError */
export function loadProjectorConfig(env: NodeJS.ProcessEnv = process.env): SharedConfig {
  return toShared(parse(projectorEnv, env));
}

/** Sweeper configuration. @throws ConfigError */
export function loadSweeperConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(sweeperEnv, env);
  return {
    ...toShared(e),
    recovery: { inactivityMs: e.SWEEPER_INACTIVITY_MS },
    tick: { intervalMs: e.SWEEPER_TICK_MS, batchSize: e.SWEEPER_BATCH_SIZE },
  };
}
export type SweeperConfig = ReturnType<typeof loadSweeperConfig>;

/** Provider sandbox configuration. @throws ConfigError */
export function loadSandboxConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parse(sandboxEnv, env);
  return {
    logLevel: e.LOG_LEVEL,
    http: { host: e.SANDBOX_HOST, port: e.SANDBOX_PORT },
    paystack: { secretKey: e.PAYSTACK_SECRET_KEY, webhookUrl: e.SANDBOX_WEBHOOK_URL },
    timeoutHoldMs: e.SANDBOX_TIMEOUT_HOLD_MS,
    readyFile: e.SETTLE_READY_FILE,
  };
}
export type SandboxConfig = ReturnType<typeof loadSandboxConfig>;

export { sharedEnv };
