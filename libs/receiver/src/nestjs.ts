import { Controller, Inject, Module, Post, Req, Res, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { problemResult, type Receiver } from './receiver.js';

/** Injection token of the {@link Receiver} given to {@link SettleReceiverModule.forRoot}. */
export const SETTLE_RECEIVER = Symbol('SETTLE_RECEIVER');

/** What the module needs of a {@link Receiver}, whatever its store's transaction type. */
export type ManagedReceiver = Pick<Receiver<unknown>, 'receive' | 'start' | 'stop'>;

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

  onApplicationBootstrap(): void {
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
 * the application's own routes (failed events, retry, access).
 */
@Module({})
export class SettleReceiverModule {
  /** @param options - {@link SettleReceiverModuleOptions}. */
  static forRoot(options: SettleReceiverModuleOptions): DynamicModule {
    return {
      module: SettleReceiverModule,
      controllers: [receiverController(options.path)],
      providers: [{ provide: SETTLE_RECEIVER, useValue: options.receiver }, ...(options.manageLifecycle === false ? [] : [ReceiverLifecycle])],
      exports: [SETTLE_RECEIVER],
    };
  }
}
