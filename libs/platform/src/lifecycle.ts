import { writeFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** Writes the ready file (when configured) so the stack scripts know the app is up. */
export function markReady(readyFile: string | undefined, logger: Logger): void {
  logger.info('ready');
  if (readyFile) writeFileSync(readyFile, `${process.pid}\n`);
}

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits. A second signal exits at once.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

/**
 * Installs the process-wide last resorts of an app, once its logger exists:
 * - an unhandled promise rejection (a promise nobody awaited or caught: a bug) is logged as
 *   an error and the process keeps running. Every durable effect in Settle is transactional
 *   and every loop retries its own work, so the rejected promise has no caller left half-way;
 *   exiting would turn a brief database or broker outage into a restart of every app.
 * - an uncaught exception (thrown synchronously from a callback, leaving the stack that
 *   threw in an unknown state) is logged as fatal and the process exits with status 1.
 */
export function guardProcess(logger: Logger): void {
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection; the process keeps running');
  });
  process.on('uncaughtException', (error: Error) => {
    logger.fatal({ err: error }, 'uncaught exception; exiting');
    process.exit(1);
  });
}

/**
 * Runs an app's async `main`; a failure at boot (bad configuration, unreachable broker)
 * prints its message, never a secret-bearing object, and exits with status 1.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
