import type { INestMicroservice, Type } from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import { PinoNestLogger, runMain } from '@settle/platform';
import { KafkaBatchTransport } from './kafka-batch.transport.js';
import { BatchErrorsPassThrough, WORKER_PROCESS } from './worker.module.js';
import { WorkerRuntime, type WorkerProcessOptions } from './worker.runtime.js';

/** A worker that booted: its Nest microservice and runtime. */
export interface RunningWorker {
  app: INestMicroservice;
  runtime: WorkerRuntime;
  /** Closes it through Nest: the consumer loops stop, then the shutdown hooks run in order (see {@link WorkerRuntime}). */
  stop(): Promise<void>;
}

/**
 * Boots a worker app module (one that imports `WorkerModule.forRoot`) as a NestJS microservice on
 * the {@link KafkaBatchTransport}: `NestFactory.createMicroservice` builds the module (the runtime
 * connects, the app's providers are built), Nest's framework logs go through the worker's logger,
 * batch errors pass through to the loops ({@link BatchErrorsPassThrough}), then `listen` runs the
 * bootstrap hooks, starts the consumer loops and reports ready. A failed boot closes what started.
 *
 * @param processOptions - whether the worker owns the process (`runWorker`) or runs in a test's.
 * @throws ConfigError when the configuration is invalid; any error of the database, the broker,
 *   the registry or the app's providers met during boot; Error when the app declares no consumer
 *   loop, or two loops with the same consumer group.
 */
export async function startWorker(module: Type, processOptions: WorkerProcessOptions = { ownsProcess: false }): Promise<RunningWorker> {
  const transport = new KafkaBatchTransport();
  const app = await NestFactory.createMicroservice(
    {
      module: WorkerProcessModule,
      imports: [module],
      providers: [{ provide: WORKER_PROCESS, useValue: processOptions }],
      exports: [WORKER_PROCESS],
      global: true,
    },
    { strategy: transport, bufferLogs: true, abortOnError: false },
  );
  return listen(app, transport, processOptions);
}

/** The boot's own root module: provides {@link WORKER_PROCESS} to the app's. */
class WorkerProcessModule {}

/**
 * Attaches the transport and starts the microservice; shared by {@link startWorker} and the tests
 * that build the app with `@nestjs/testing` (`Test.createTestingModule(...).createNestMicroservice`).
 */
export async function listen(app: INestMicroservice, transport: KafkaBatchTransport, processOptions: WorkerProcessOptions): Promise<RunningWorker> {
  const runtime = app.get(WorkerRuntime, { strict: false });
  app.useLogger(new PinoNestLogger(runtime.context.logger));
  app.useGlobalFilters(new BatchErrorsPassThrough());
  transport.attach(runtime, app.get(ModuleRef));
  if (processOptions.ownsProcess) app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  try {
    await app.listen();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return { app, runtime, stop: () => app.close() };
}

/**
 * Runs a worker as the process's app: boots it with {@link startWorker} (a failed boot prints
 * its message and exits with status 1). On SIGTERM or SIGINT Nest runs the shutdown hooks
 * (`enableShutdownHooks`) in the order {@link WorkerRuntime} documents and exits with status 0;
 * with status 1 when a step failed, when the stop overran `SHUTDOWN_TIMEOUT_MS`, or at once on a
 * second signal.
 */
export function runWorker(module: Type): void {
  runMain(async () => {
    await startWorker(module, { ownsProcess: true });
  });
}
