import { writeFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** Writes the ready file (when configured) so the stack scripts know the app is up. */
export function markReady(readyFile: string | undefined, logger: Logger): void {
  logger.info('ready');
  if (readyFile) writeFileSync(readyFile, `${process.pid}\n`);
}

/** One step of an app's shutdown. */
export interface StopStep {
  /** What stops, for the log lines (for example `consumer loops`, `outbox relay ingestion`). */
  name: string;
  stop(): Promise<void> | void;
}

/** Where a shutdown in progress stands: the step running now, for the log line when it overruns its bound. */
export interface ShutdownProgress {
  /** The step being stopped, `null` before the first or after the last. */
  step: string | null;
}

/**
 * Runs the steps one after the other, in the order given, each once the previous one settled,
 * noting the running step in `progress`. A step that fails is logged and the next one still
 * runs, so an HTTP server that fails to close never leaves the producer connected or the pool
 * open.
 *
 * @throws the first step's error, once every step ran.
 */
export async function stopInOrder(steps: readonly StopStep[], logger: Logger, progress: ShutdownProgress = { step: null }): Promise<void> {
  let first: { error: unknown } | null = null;
  for (const step of steps) {
    progress.step = step.name;
    try {
      await step.stop();
    } catch (error) {
      logger.error({ err: error, step: step.name }, 'shutdown step failed; continuing with the next');
      first ??= { error };
    }
  }
  progress.step = null;
  if (first) throw first.error;
}

/** How a bounded stop ended ({@link stopWithin}). */
export type StopOutcome =
  { kind: 'stopped'; durationMs: number } | { kind: 'failed'; durationMs: number; error: unknown } | { kind: 'timed-out'; timeoutMs: number };

/**
 * Runs `stop` and waits for it at most `timeoutMs` milliseconds. A stop that overruns is not
 * cancelled (nothing can cancel a promise); the caller decides what to do, normally exit.
 *
 * @returns `stopped` or `failed` (with its error) and how long it took, milliseconds; or
 *   `timed-out` when it had not settled within `timeoutMs`. Never rejects.
 */
export async function stopWithin(stop: () => Promise<void>, timeoutMs: number): Promise<StopOutcome> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<StopOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timed-out', timeoutMs }), timeoutMs);
  });
  const ran = stop().then(
    (): StopOutcome => ({ kind: 'stopped', durationMs: Math.round(performance.now() - started) }),
    (error: unknown): StopOutcome => ({ kind: 'failed', durationMs: Math.round(performance.now() - started), error }),
  );
  try {
    return await Promise.race([ran, overrun]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@link onShutdown}. */
export interface ShutdownOptions {
  /** Longest the stop may take, milliseconds (`SHUTDOWN_TIMEOUT_MS`); past it the process exits with status 1. */
  timeoutMs: number;
  /** Ends the process; `process.exit` unless a test gives its own. */
  exit?: (code: number) => void;
}

/**
 * The graceful shutdown of an app (docs/operations.md, "Graceful shutdown"), as a signal
 * handler: the first call runs `stop` once (it gets a {@link ShutdownProgress} to note its
 * steps in) and exits with status 0 once it finished, logging how long it took. It exits with
 * status 1 when a step failed (logged), or when the stop has not finished within `timeoutMs`
 * milliseconds: then the log line names the step still running (`step`) and the bound. A second
 * call exits with status 1 at once. {@link onShutdown} installs it for SIGTERM and SIGINT.
 */
export function shutdownHandler(logger: Logger, stop: (progress: ShutdownProgress) => Promise<void>, options: ShutdownOptions): (signal: string) => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during the shutdown; exiting at once');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs: options.timeoutMs }, 'shutting down');
    const progress: ShutdownProgress = { step: null };
    void stopWithin(() => stop(progress), options.timeoutMs).then((outcome) => {
      switch (outcome.kind) {
        case 'stopped':
          logger.info({ durationMs: outcome.durationMs }, 'shut down');
          exit(0);
          return;
        case 'failed':
          logger.error({ err: outcome.error, durationMs: outcome.durationMs }, 'shutdown failed');
          exit(1);
          return;
        case 'timed-out':
          logger.error({ timeoutMs: outcome.timeoutMs, step: progress.step }, 'shutdown did not finish within SHUTDOWN_TIMEOUT_MS; exiting with status 1');
          exit(1);
          return;
        default: {
          const never: never = outcome;
          throw new Error(`unknown stop outcome ${JSON.stringify(never)}`);
        }
      }
    });
  };
  return handler;
}

/** Installs {@link shutdownHandler} for SIGTERM and SIGINT. */
export function onShutdown(logger: Logger, stop: (progress: ShutdownProgress) => Promise<void>, options: ShutdownOptions): void {
  const handler = shutdownHandler(logger, stop, options);
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
