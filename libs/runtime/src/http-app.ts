import type { INestApplication } from '@nestjs/common';
import { runMain } from '@settle/platform';
import { AppRuntime, type AppConfig, type AppProcessOptions, type AppRuntimeOptions } from './app.runtime.js';

/** Configuration of an HTTP app: where it listens. */
export interface HttpAppConfig extends AppConfig {
  http: { port: number; host: string };
}

/** An HTTP app, declared to {@link runHttpApp}. */
export interface HttpAppOptions<C extends HttpAppConfig> extends AppRuntimeOptions<C> {
  /**
   * Builds the app's Nest application on the connected runtime, not yet listening, with
   * `runtime.module()` among its root's imports (so the runtime's shutdown hooks run after the
   * app's); registers with `runtime.onStop` what the app started outside Nest (timers, clients),
   * in the order they stop.
   */
  build(runtime: AppRuntime<C>): Promise<INestApplication>;
}

/** An HTTP app that booted. */
export interface RunningHttpApp<C extends HttpAppConfig> {
  app: INestApplication;
  runtime: AppRuntime<C>;
  /** Where it listens. */
  url: string;
}

/**
 * Boots an HTTP app: connects its runtime ({@link AppRuntime.connect}: configuration, logger,
 * tracing, metrics registry, pool and migrations), builds its Nest application (`build`), listens
 * on `config.http`, then reports ready and writes the ready file. When the app
 * owns the process, SIGTERM and SIGINT run Nest's shutdown (`enableShutdownHooks`): the runtime's
 * `onModuleDestroy` bounds it by `SHUTDOWN_TIMEOUT_MS`; the HTTP server closes (requests in flight
 * finish; the edge answers later ones 503 `SERVICE.UNAVAILABLE`); the app's own
 * `onApplicationShutdown` hooks run, then the runtime's steps (`onStop`'s, the pool, tracing);
 * then the process exits with status 0, or 1 when a step failed.
 * A failed boot stops what started before rethrowing.
 *
 * @throws ConfigError when the configuration is invalid; Error when `build` did not import
 *   `runtime.module()`; any error met while migrating, building or listening.
 */
export async function startHttpApp<C extends HttpAppConfig>(options: HttpAppOptions<C>, processOptions: AppProcessOptions): Promise<RunningHttpApp<C>> {
  const runtime = await AppRuntime.connect(options, processOptions);
  let app: INestApplication | null = null;
  try {
    app = await options.build(runtime);
    if (provided(app) !== runtime) throw new Error(`${options.name}: build must import runtime.module() into the app`);
    if (processOptions.ownsProcess) app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
    const { port, host } = runtime.base.config.http;
    await app.listen(port, host);
    const url = await app.getUrl();
    runtime.base.logger.info({ url }, `${options.name} listening`);
    runtime.ready();
    return { app, runtime, url };
  } catch (error) {
    if (app) await app.close().catch(() => undefined);
    else await runtime.onApplicationShutdown().catch(() => undefined);
    throw error;
  }
}

/**
 * Runs an HTTP app as the process's app ({@link startHttpApp}); a failed boot prints its message
 * and exits with status 1.
 */
export function runHttpApp<C extends HttpAppConfig>(options: HttpAppOptions<C>): void {
  runMain(async () => {
    await startHttpApp(options, { ownsProcess: true });
  });
}

/** The runtime the app's container provides, `null` when none. */
function provided(app: INestApplication): AppRuntime | null {
  try {
    return app.get(AppRuntime, { strict: false });
  } catch {
    return null;
  }
}
