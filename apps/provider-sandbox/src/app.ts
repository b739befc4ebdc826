import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { HealthModule, installRequestLog, PinoNestLogger, requestIdOf, SCRAPE_ROUTES } from '@settle/http';
import { HealthProbes, type Logger } from '@settle/platform';
import type { SandboxConfig } from './config.js';
import { rewriteProviderUrl, UnknownRouteFilter } from './provider.routes.js';
import { SandboxController } from './sandbox.controller.js';
import { SANDBOX_CONFIG, SANDBOX_SIMULATORS } from './sandbox.http.js';
import { SandboxRegistry } from './sandbox.registry.js';
import { SIMULATION_LIST } from './simulations.js';
import { WebhookSender, type WebhookSenderOptions } from './webhook-sender.js';

@Module({})
class SandboxModule {
  static forRoot(config: SandboxConfig, registry: SandboxRegistry): DynamicModule {
    return {
      module: SandboxModule,
      // `GET /health/live` and `/health/ready` as every app answers them; the sandbox depends on nothing.
      imports: [HealthModule.forRoot({ probes: new HealthProbes([]) })],
      controllers: [SandboxController, ...SIMULATION_LIST.flatMap((s) => s.controllers)],
      providers: [
        { provide: SANDBOX_CONFIG, useValue: config },
        { provide: SandboxRegistry, useValue: registry },
        { provide: SANDBOX_SIMULATORS, useValue: registry },
      ],
    };
  }
}

/** The root of a sandbox given {@link SandboxAppOptions.imports}: its module beside them. */
class SandboxRoot {}

/** A built (not yet listening) sandbox app and what it owns. */
export interface SandboxApp {
  app: NestFastifyApplication;
  registry: SandboxRegistry;
  /** Cancels pending webhooks (their timers; a send in flight ends on its own). */
  stopWebhooks(): void;
  /** Cancels pending webhooks and closes the HTTP server. */
  close(): Promise<void>;
}

/** Options for tests: the clock of token expiry and ids, and the webhook retry policy. */
export interface SandboxAppOptions {
  now?: () => number;
  webhooks?: WebhookSenderOptions;
  /** Modules imported beside the sandbox's own: the runtime's lifecycle module, at boot (`main.ts`). */
  imports?: readonly DynamicModule[];
}

/**
 * Builds the provider sandbox's Nest app (Fastify) for a configuration: every configured
 * provider's endpoints plus the control API, Nest's logs and one line per request through
 * `logger`; unknown routes under a provider's API answered in its error shape, and repeated
 * slashes read as one where its API tolerates them (`provider.routes.ts`). Call `app.listen` to
 * serve it.
 */
export async function createSandboxApp(config: SandboxConfig, logger: Logger, options: SandboxAppOptions = {}): Promise<SandboxApp> {
  const sender = new WebhookSender(logger, options.webhooks);
  const registry = SandboxRegistry.fromConfig(config, sender, options.now);
  const app = await NestFactory.create<NestFastifyApplication>(
    options.imports?.length
      ? { module: SandboxRoot, imports: [SandboxModule.forRoot(config, registry), ...options.imports] }
      : SandboxModule.forRoot(config, registry),
    new FastifyAdapter({
      genReqId: requestIdOf,
      rewriteUrl: (request: { url?: string | undefined }) => rewriteProviderUrl(request.url ?? '/', SIMULATION_LIST),
    }),
    {
      logger: new PinoNestLogger(logger),
    },
  );
  // An unknown route under a provider's API answers in that provider's error shape.
  app.useGlobalFilters(new UnknownRouteFilter(SIMULATION_LIST, app.getHttpAdapter()));
  // One line per request, as Settle's own apps (the sandbox is not on their HTTP edge: it answers as the providers do).
  installRequestLog(app.getHttpAdapter().getInstance(), logger, [...SCRAPE_ROUTES, '/_sandbox/health']);
  return {
    app,
    registry,
    stopWebhooks: () => sender.stop(),
    close: async () => {
      sender.stop();
      await app.close();
    },
  };
}
