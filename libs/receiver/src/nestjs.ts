import {
  Controller,
  Inject,
  Module,
  Post,
  Req,
  Res,
  type DynamicModule,
  type FactoryProvider,
  type ModuleMetadata,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { problemResult, type Receiver } from './receiver.js';

/** Injection token of the {@link Receiver} given to {@link SettleReceiverModule.forRoot}. */
export const SETTLE_RECEIVER = Symbol('SETTLE_RECEIVER');

/** What the module needs of a {@link Receiver}, whatever its store's transaction type. */
export type ManagedReceiver = Pick<Receiver<unknown>, 'receive' | 'start' | 'stop'> & Partial<Pick<Receiver<unknown>, 'ready'>>;

/** Options of {@link SettleReceiverModule.forRoot}. */
export interface SettleReceiverModuleOptions {
  /** Route of the webhook endpoint, for example `webhook/settle` (POST). */
  readonly path: string;
  /** The receiver answering it (see `createReceiver`). */
  readonly receiver: ManagedReceiver;
  /**
   * Start the receiver's processor on application bootstrap and stop it on shutdown (call
   * `app.enableShutdownHooks()` for signals). Default true.
   */
  readonly manageLifecycle?: boolean;
}

/**
 * Options of {@link SettleReceiverModule.forRootAsync}: the receiver built by a factory that Nest
 * injects with the application's own providers (a configuration service holding the secrets, a
 * database pool, services the handlers call).
 */
export interface SettleReceiverModuleAsyncOptions {
  /** Route of the webhook endpoint, for example `webhook/settle` (POST); fixed when the module is defined. */
  readonly path: string;
  /** Modules exporting the providers `inject` names (for example `ConfigModule`). */
  readonly imports?: ModuleMetadata['imports'];
  /** Providers passed to `useFactory`, in order. */
  readonly inject?: FactoryProvider['inject'];
  /** Builds the receiver (`createReceiver`), synchronously or not. */
  readonly useFactory: (...args: never[]) => ManagedReceiver | Promise<ManagedReceiver>;
  /** As in {@link SettleReceiverModuleOptions.manageLifecycle}. Default true. */
  readonly manageLifecycle?: boolean;
}

/** What Nest hands the controller: express and Fastify requests both carry these. */
interface RawBodyRequest {
  readonly headers: IncomingHttpHeaders;
  readonly rawBody?: Buffer;
}

function receiverController(path: string) {
  @Controller(path)
  class SettleReceiverController {
    constructor(
      @Inject(SETTLE_RECEIVER) private readonly receiver: ManagedReceiver,
      @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    ) {}

    @Post()
    async receive(@Req() req: RawBodyRequest, @Res() res: unknown): Promise<void> {
      const result = Buffer.isBuffer(req.rawBody)
        ? await this.receiver.receive(req.rawBody, req.headers)
        : problemResult('RECEIVER.RAW_BODY_UNAVAILABLE', 'create the Nest application with { rawBody: true }');
      const adapter = this.adapterHost.httpAdapter;
      for (const [name, value] of Object.entries(result.headers)) adapter.setHeader(res, name, value);
      adapter.reply(res, JSON.stringify(result.body), result.status);
    }
  }
  return SettleReceiverController;
}

class ReceiverLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(SETTLE_RECEIVER) private readonly receiver: ManagedReceiver) {}

  /**
   * Checks the store keeps what it acknowledges (the Redis store's persistence check: a failure
   * fails the application's start), then starts the processor.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.receiver.ready?.();
    this.receiver.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.receiver.stop();
  }
}

/**
 * The kit as a NestJS module: a controller answering `POST <path>` with the receiver (receiver
 * rules 1 to 3), through the application's HTTP adapter (express or Fastify). The signature is
 * over the raw bytes, so the application must be created with `rawBody: true`
 * (`NestFactory.create(AppModule, { rawBody: true })`); without it the endpoint answers 500
 * `RECEIVER.RAW_BODY_UNAVAILABLE`. The receiver is exported as {@link SETTLE_RECEIVER} for
 * the application's own routes (failed events, retry, access). `forRoot` takes a receiver built
 * beforehand; `forRootAsync` builds it with the application's own providers.
 */
@Module({})
export class SettleReceiverModule {
  /** @param options - {@link SettleReceiverModuleOptions}. */
  static forRoot(options: SettleReceiverModuleOptions): DynamicModule {
    return receiverModule(options.path, { provide: SETTLE_RECEIVER, useValue: options.receiver }, options.manageLifecycle, []);
  }

  /**
   * The module with its receiver built by a factory Nest injects, so that handlers can use the
   * application's providers and the secrets can come from its configuration:
   *
   * ```ts
   * SettleReceiverModule.forRootAsync({
   *   path: 'webhook/settle',
   *   imports: [ConfigModule],
   *   inject: [ConfigService, Pool, WelcomeMailer],
   *   useFactory: (config: ConfigService, pool: Pool, mailer: WelcomeMailer) =>
   *     createReceiver({ secrets: config.getOrThrow<string>('SETTLE_WEBHOOK_SECRETS').split(','), store: new PostgresReceiverStore(pool),
   *       handlers: { subscription_started: (event) => mailer.welcome(event) } }),
   * })
   * ```
   *
   * @param options - {@link SettleReceiverModuleAsyncOptions}.
   */
  static forRootAsync(options: SettleReceiverModuleAsyncOptions): DynamicModule {
    return receiverModule(
      options.path,
      { provide: SETTLE_RECEIVER, useFactory: options.useFactory as (...args: unknown[]) => ManagedReceiver, inject: options.inject ?? [] },
      options.manageLifecycle,
      options.imports ?? [],
    );
  }
}

/** The module's definition, whichever way its receiver is provided. */
function receiverModule(
  path: string,
  receiver: Provider,
  manageLifecycle: boolean | undefined,
  imports: NonNullable<ModuleMetadata['imports']>,
): DynamicModule {
  return {
    module: SettleReceiverModule,
    imports,
    controllers: [receiverController(path)],
    providers: [receiver, ...(manageLifecycle === false ? [] : [ReceiverLifecycle])],
    exports: [SETTLE_RECEIVER],
  };
}
