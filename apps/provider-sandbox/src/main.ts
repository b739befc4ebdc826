import 'reflect-metadata';
import { runHttpApp } from '@settle/runtime';
import { createSandboxApp } from './app.js';
import { loadSandboxConfig } from './config.js';
import { SIMULATION_LIST } from './simulations.js';

/**
 * The provider sandbox, a local stand-in for the providers' APIs, booted by the shared runtime
 * (`runHttpApp`; no database). On SIGTERM or SIGINT: the HTTP server closes, then its pending
 * webhooks are cancelled.
 */
runHttpApp({
  name: 'provider-sandbox',
  config: loadSandboxConfig,
  build: async (runtime) => {
    const { config, logger } = runtime.base;
    const sandbox = await createSandboxApp(config, logger, { webhooks: { maxAttempts: config.webhookRetries }, imports: [runtime.module()] });
    runtime.onStop({ name: 'pending webhooks', stop: () => sandbox.stopWebhooks() });
    logger.info(
      {
        providers: Object.fromEntries(
          SIMULATION_LIST.map((simulation) => {
            const settings = config.providers[simulation.name];
            return [simulation.name, settings === null ? 'off (no credentials)' : simulation.describe(settings)];
          }),
        ),
      },
      'provider sandbox configured',
    );
    return sandbox.app;
  },
});
