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
 * Runs an app's async `main`; a failure at boot (bad configuration, unreachable broker)
 * prints its message, never a secret-bearing object, and exits with status 1.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
