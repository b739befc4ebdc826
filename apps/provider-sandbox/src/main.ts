import 'reflect-metadata';
import { loadSandboxConfig } from '@settle/config';
import { createLogger, markReady, onShutdown, runMain } from '@settle/platform';
import { createSandboxApp } from './app.js';

/** Boots the provider sandbox: a local stand-in for the providers' APIs. */
async function main(): Promise<void> {
  const config = loadSandboxConfig();
  const logger = createLogger('provider-sandbox', config.logLevel);
  const sandbox = await createSandboxApp(config, logger, { webhooks: { maxAttempts: config.webhookRetries } });
  await sandbox.app.listen(config.http.port, config.http.host);
  logger.info(
    {
      url: await sandbox.app.getUrl(),
      providers: {
        paystack: 'on, webhooks on',
        stripe: config.stripe ? `on, webhooks ${config.stripe.webhook ? 'on' : 'off (SANDBOX_STRIPE_WEBHOOK_URL unset)'}` : 'off (no credentials)',
        flutterwave: config.flutterwave
          ? `on, webhooks ${config.flutterwave.webhook ? 'on' : 'off (SANDBOX_FLUTTERWAVE_WEBHOOK_URL unset)'}`
          : 'off (no credentials)',
        mpesa: config.mpesa ? `on, callbacks ${config.mpesa.callbackUrl ? 'on' : 'off (SANDBOX_MPESA_CALLBACK_URL unset)'}` : 'off (no credentials)',
      },
    },
    'provider sandbox listening',
  );
  markReady(config.readyFile, logger);
  onShutdown(logger, () => sandbox.close(), { timeoutMs: config.shutdownTimeoutMs });
}

runMain(main);
