import 'reflect-metadata';
import { loadSandboxConfig } from '@settle/config';
import { runHttpApp } from '@settle/runtime';
import { createSandboxApp } from './app.js';

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
        providers: {
          paystack: 'on, webhooks on',
          stripe: config.stripe ? `on, webhooks ${config.stripe.webhook ? 'on' : 'off (SANDBOX_STRIPE_WEBHOOK_URL unset)'}` : 'off (no credentials)',
          flutterwave: config.flutterwave
            ? `on, webhooks ${config.flutterwave.webhook ? 'on' : 'off (SANDBOX_FLUTTERWAVE_WEBHOOK_URL unset)'}`
            : 'off (no credentials)',
          mpesa: config.mpesa ? `on, callbacks ${config.mpesa.callbackUrl ? 'on' : 'off (SANDBOX_MPESA_CALLBACK_URL unset)'}` : 'off (no credentials)',
        },
      },
      'provider sandbox configured',
    );
    return sandbox.app;
  },
});
