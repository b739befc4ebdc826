import { Catch, Module, type DynamicModule, type RpcExceptionFilter } from '@nestjs/common';
import type { WorkerConfig } from '@settle/config';
import { throwError, type Observable } from 'rxjs';
import { WorkerRuntime, type WorkerProcessOptions } from './worker.runtime.js';
import type { WorkerModuleOptions } from './worker.options.js';

/** Token of the worker's {@link WorkerContext}: its configuration, logger, pool, Kafka, outboxes, metrics and health. */
export const WORKER_CONTEXT = Symbol('WORKER_CONTEXT');

/** Token of how the process runs the worker ({@link WorkerProcessOptions}); `startWorker` provides it, a worker in a test's own process goes without. */
export const WORKER_PROCESS = Symbol('WORKER_PROCESS');

/**
 * The shared module of every Kafka worker: `WorkerModule.forRoot(options)` in the app's module
 * connects the worker at boot ({@link WorkerRuntime.connectWorker}: configuration, logger, tracing,
 * pool and migrations, Kafka and the schema registry, outboxes and relays, metrics and health)
 * and provides the {@link WorkerContext} (token {@link WORKER_CONTEXT}) to the app's providers,
 * and the {@link WorkerRuntime}, whose lifecycle hooks start and stop the connections in the
 * documented order. Global, so the app's feature modules see it too, and its hooks run first at
 * boot and last at shutdown.
 */
@Module({})
export class WorkerModule {
  /**
   * @param options - the worker's name, configuration loader, log fields, migrations, produced
   *   record types and outboxes ({@link WorkerModuleOptions}).
   * @returns a global module providing `WorkerRuntime` (connected when the app is created: see
   *   `WorkerRuntime.connectWorker` for what it throws) and {@link WORKER_CONTEXT}.
   */
  static forRoot<C extends WorkerConfig, O extends string = never>(options: WorkerModuleOptions<C, O>): DynamicModule {
    return {
      module: WorkerModule,
      global: true,
      providers: [
        {
          provide: WorkerRuntime,
          useFactory: (processOptions: WorkerProcessOptions | undefined) => WorkerRuntime.connectWorker(options, processOptions ?? { ownsProcess: false }),
          inject: [{ token: WORKER_PROCESS, optional: true }],
        },
        { provide: WORKER_CONTEXT, useFactory: (runtime: WorkerRuntime<C, O>) => runtime.context, inject: [WorkerRuntime] },
      ],
      exports: [WorkerRuntime, WORKER_CONTEXT],
    };
  }
}

/**
 * The workers' exception filter: a batch handler's error reaches the consumer loop as thrown (a
 * transient error: the loop retries the whole batch in place; `abandonBatchWhen` and
 * `isPermanent` see the error's own class), instead of Nest's default, which turns any error into
 * `{ status: 'error', message: 'Internal server error' }` and logs it through Nest's logger.
 */
@Catch()
export class BatchErrorsPassThrough implements RpcExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
