import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadSandboxConfig, type SandboxConfig } from '@settle/config';
import { createLogger, markReady, onShutdown, type Logger, runMain } from '@settle/platform';
import { PaystackSandbox } from './paystack.sandbox.js';
import { SANDBOX_CONFIG, SandboxController } from './sandbox.controller.js';
import { WebhookSender } from './webhook-sender.js';

@Module({})
class SandboxModule {
  static forRoot(config: SandboxConfig, logger: Logger, sandbox: PaystackSandbox, sender: WebhookSender): DynamicModule {
    return {
      module: SandboxModule,
      controllers: [SandboxController],
      providers: [
        { provide: SANDBOX_CONFIG, useValue: config },
        { provide: PaystackSandbox, useValue: sandbox },
        { provide: WebhookSender, useValue: sender },
      ],
    };
  }
}

/** Boots the provider sandbox: a local stand-in for the providers' APIs. */
async function main(): Promise<void> {
  const config = loadSandboxConfig();
  const logger = createLogger('provider-sandbox', config.logLevel);
  const sandbox = new PaystackSandbox();
  const sender = new WebhookSender(sandbox, config.paystack.webhookUrl, config.paystack.secretKey.reveal(), logger);
  const app = await NestFactory.create<NestFastifyApplication>(
    SandboxModule.forRoot(config, logger, sandbox, sender),
    new FastifyAdapter(),
    { logger: ['error', 'warn'] },
  );
  await app.listen(config.http.port, config.http.host);
  logger.info({ url: await app.getUrl() }, 'provider sandbox listening');
  markReady(config.readyFile, logger);
  onShutdown(logger, async () => {
    sender.stop();
    await app.close();
  });
}

runMain(main);
