import { z } from 'zod';
import { host, int, logLevel, port, readyFile, shutdownTimeout } from './shared.js';

/**
 * The provider sandbox's common variables: listen address, timing, lifecycle. Each simulated
 * provider declares its own variables beside its simulation (`apps/provider-sandbox/src/
 * <provider>.sandbox.ts`); the sandbox app composes them with these (`loadSandboxConfig` there).
 */
export const sandboxCommonEnv = z.object({
  LOG_LEVEL: logLevel(),
  SANDBOX_HOST: host('sandbox'),
  SANDBOX_PORT: port('sandbox', 3100),
  SANDBOX_TIMEOUT_HOLD_MS: int(30_000, 1).meta({ description: 'How long a "time out" answer holds the connection, milliseconds.' }),
  SANDBOX_WEBHOOK_RETRIES: int(4, 0).meta({
    description:
      'Retries of a webhook answered 5xx or not answered at all, after the first attempt, with exponential backoff from 0.5 s up to 5 s between attempts (real providers retry for days).',
  }),
  SETTLE_READY_FILE: readyFile(),
  SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
});
