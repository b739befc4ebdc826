import type { BeforeApplicationShutdown, DynamicModule, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { loadTracingConfig } from '@settle/config';
import {
  createLogger,
  createMetricsRegistry,
  createPool,
  guardProcess,
  markReady,
  migrateSchemas,
  startTracing,
  stopInOrder,
  type Logger,
  type Pool,
  type SchemaMigrations,
  type ShutdownProgress,
  type StopStep,
} from '@settle/platform';
import type { Registry } from 'prom-client';

/** What every app's configuration says about its life (every `@settle/config` loader's result has it). */
export interface AppConfig {
  logLevel: string;
  /**
   * The app's PostgreSQL database, pool size and whether repeated statements run prepared
   * (`DATABASE_URL`, `DATABASE_POOL_SIZE`, `DATABASE_PREPARED_STATEMENTS`); the provider sandbox has none.
   */
  database?: { url: string; poolSize?: number; preparedStatements?: boolean };
  /** Written with the process id once the app is ready (`SETTLE_READY_FILE`), for the stack scripts. */
  readyFile: string | undefined;
  /** Longest a graceful shutdown may take, milliseconds (`SHUTDOWN_TIMEOUT_MS`). */
  shutdownTimeoutMs: number;
}

/** An app, as the runtime connects it: its name, configuration loader, log fields and migrations. */
export interface AppRuntimeOptions<C extends AppConfig> {
  /** App name: the logger's `app`, the tracing service name. */
  name: string;
  /** Parses the app's configuration (a `@settle/config` loader). @throws ConfigError */
  config: () => C;
  /** Fields added to every log line (for example the sweeper's instance id). */
  logBindings?: Record<string, unknown>;
  /**
   * The versioned migrations of the schemas this app owns, applied in order at boot, each schema
   * under its advisory lock (see `migrateSchema` in @settle/platform; docs/postgres.md).
   */
  migrations?: readonly SchemaMigrations[];
}

/** How the process runs the app (`runWorker` and `runHttpApp` own it; a test running apps in its own process does not). */
export interface AppProcessOptions {
  /**
   * The app owns the process: the process-wide guards are installed (`guardProcess`), and its
   * shutdown is bounded by `SHUTDOWN_TIMEOUT_MS` (past it, the step still running is logged and the
   * process exits with status 1) and ended at once, status 1, by a second signal.
   */
  ownsProcess: boolean;
  /** Ends the process; `process.exit` unless a test gives its own. */
  exit?: (code: number) => void;
}

/** What the runtime connected, common to every app. */
export interface AppBase<C extends AppConfig> {
  name: string;
  config: C;
  /** The app's logger (`app` is the app's name, plus its `logBindings`). */
  logger: Logger;
  /** The app's Prometheus registry, with prom-client's default process metrics. */
  metrics: Registry;
  /** The app's PostgreSQL pool (`DATABASE_POOL_SIZE` connections), migrated; `null` for an app without a database. */
  pool: Pool | null;
  /** Stops tracing, exporting its buffered spans (bounded). */
  stopTracing(): Promise<void>;
}

/**
 * The life of one app, shared by every Settle app, HTTP or Kafka worker, as a Nest provider (the
 * app's module imports {@link AppRuntime.module}, or `WorkerModule.forRoot` for a worker): built at
 * boot by {@link connectApp} (configuration, logger, tracing, metrics registry, pool and
 * migrations), stopped through Nest's lifecycle hooks after the app's own, in the order
 * docs/operations.md ("Graceful shutdown") documents:
 *
 * - `onModuleDestroy` (the first hook of a shutdown): {@link AppRuntime.stopping} (a worker's
 *   readiness turns `down`); when the app owns the process the shutdown is bounded from here;
 * - Nest's dispose step: the HTTP server closes (requests in flight finish), or the Kafka batch
 *   transport stops the consumer loops;
 * - `onApplicationShutdown`, the app's modules first, then this global one: the steps the app
 *   added ({@link AppRuntime.onStop}, in order), the pool, tracing.
 */
export class AppRuntime<C extends AppConfig = AppConfig> implements OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly steps: StopStep[] = [];
  private readonly progress: ShutdownProgress = { step: null };
  private watchdog: NodeJS.Timeout | null = null;
  private stoppingSince: number | null = null;

  /** @param base - what {@link connectApp} connected. */
  constructor(
    readonly base: AppBase<C>,
    readonly processOptions: AppProcessOptions,
  ) {}

  /**
   * Connects an app ({@link connectApp}) and wraps it in a runtime.
   *
   * @throws ConfigError when the configuration is invalid; any error of the database met while migrating.
   */
  static async connect<C extends AppConfig>(options: AppRuntimeOptions<C>, processOptions: AppProcessOptions): Promise<AppRuntime<C>> {
    return new AppRuntime(await connectApp(options, processOptions), processOptions);
  }

  /** The app's pool. @throws Error when the app has no database (`DATABASE_URL`). */
  get pool(): Pool {
    if (!this.base.pool) throw new Error(`${this.base.name} has no database`);
    return this.base.pool;
  }

  /**
   * A global module providing this runtime (token {@link AppRuntime}), to import into the app's
   * Nest application so that its hooks run in the app's lifecycle, after the app's own.
   */
  module(): DynamicModule {
    return { module: AppRuntimeModule, global: true, providers: [{ provide: AppRuntime, useValue: this }], exports: [AppRuntime] };
  }

  /**
   * Adds steps to the shutdown: run in order, after the app's own `onApplicationShutdown` hooks
   * and the steps added before, and before the pool and tracing.
   */
  onStop(...steps: StopStep[]): void {
    this.steps.push(...steps);
  }

  /** The app is ready: logged, and the ready file written. */
  ready(): void {
    markReady(this.base.config.readyFile, this.base.logger);
  }

  /** Notes the step running now, for the log line of an overrun. */
  noteStep(step: string): void {
    this.progress.step = step;
  }

  /** Called first at shutdown; a worker turns its readiness `down` here. */
  protected stopping(): void {}

  /**
   * First step of the shutdown. When the app owns the process, the shutdown is bounded from here by
   * `SHUTDOWN_TIMEOUT_MS`, and a second signal exits at once.
   */
  onModuleDestroy(): void {
    this.stopping();
    this.stoppingSince = performance.now();
    this.noteStep('closing its intake');
    if (!this.processOptions.ownsProcess) return;
    const { logger, config } = this.base;
    const exit = this.processOptions.exit ?? ((code: number) => process.exit(code));
    this.watchdog = setTimeout(() => {
      logger.error(
        { timeoutMs: config.shutdownTimeoutMs, step: this.progress.step },
        'shutdown did not finish within SHUTDOWN_TIMEOUT_MS; exiting with status 1',
      );
      exit(1);
    }, config.shutdownTimeoutMs);
    this.watchdog.unref();
    const second = (signal: string) => {
      logger.warn({ signal }, 'second signal during the shutdown; exiting at once');
      exit(1);
    };
    process.once('SIGTERM', second);
    process.once('SIGINT', second);
  }

  /** Logs the shutdown's start, with its signal (none when the app is closed by its owner, a test). */
  beforeApplicationShutdown(signal?: string): void {
    this.base.logger.info({ signal, timeoutMs: this.base.config.shutdownTimeoutMs }, 'shutting down');
  }

  /**
   * Last hook, once the app's intake and its own providers stopped: the added steps, the pool,
   * tracing, in order; a step that fails is logged and the rest still run. Nest logs an error of a
   * shutdown hook and goes on, so the runtime ends the process itself when a step failed: with
   * status 1, when it owns the process (a test's app logs `shutdown failed` only).
   */
  async onApplicationShutdown(): Promise<void> {
    const { logger, pool } = this.base;
    let failed = false;
    try {
      await stopInOrder(
        [
          ...this.steps,
          { name: 'database pool', stop: () => pool?.end() },
          // Last: the spans of everything above are exported (bounded; never holds the exit up long).
          { name: 'tracing', stop: () => this.base.stopTracing() },
        ],
        logger,
        this.progress,
      );
      logger.info({ durationMs: this.stoppingSince === null ? 0 : Math.round(performance.now() - this.stoppingSince) }, 'shut down');
    } catch (error) {
      failed = true;
      logger.error({ err: error }, 'shutdown failed');
    } finally {
      if (this.watchdog) clearTimeout(this.watchdog);
    }
    if (failed && this.processOptions.ownsProcess) (this.processOptions.exit ?? ((code: number) => process.exit(code)))(1);
  }
}

/** The module {@link AppRuntime.module} returns. */
class AppRuntimeModule {}

/**
 * Connects what every app needs: parses its configuration, creates its logger (with its
 * `logBindings`), installs the process-wide guards when it owns the process, starts tracing when
 * the `OTEL_*` variables ask for it (service name the app's name), creates its Prometheus registry
 * (default process metrics) and, when it has a database, its PostgreSQL pool, and applies its
 * migrations. A failed migration closes the pool and tracing before rethrowing.
 *
 * @throws ConfigError when the configuration is invalid; any error of the database met while migrating.
 */
export async function connectApp<C extends AppConfig>(options: AppRuntimeOptions<C>, processOptions: AppProcessOptions): Promise<AppBase<C>> {
  const config = options.config();
  const root = createLogger(options.name, config.logLevel);
  const logger = options.logBindings ? root.child(options.logBindings) : root;
  if (processOptions.ownsProcess) guardProcess(logger);
  // Tracing (OTEL_* variables; off unless asked for) before anything that starts spans.
  const tracing = startTracing(loadTracingConfig(options.name), logger);
  const metrics = createMetricsRegistry();
  const pool = config.database
    ? createPool(
        config.database.url,
        config.database.poolSize ?? 10,
        (error) => logger.warn({ err: error }, 'database connection lost; the pool opens a new one on next use'),
        { preparedStatements: config.database.preparedStatements },
      )
    : null;
  try {
    if (pool) await migrateSchemas(pool, options.migrations ?? [], logger);
  } catch (error) {
    await stopInOrder(
      [
        { name: 'database pool', stop: () => pool?.end() },
        { name: 'tracing', stop: () => tracing.shutdown() },
      ],
      logger,
    ).catch(() => undefined);
    throw error;
  }
  return { name: options.name, config, logger, metrics, pool, stopTracing: () => tracing.shutdown() };
}
