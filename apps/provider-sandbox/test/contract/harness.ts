import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@settle/platform';
import { createSandboxApp, type SandboxApp } from '../../src/app.js';
import { loadSandboxConfig } from '../../src/config.js';

/** A webhook the sandbox delivered to the harness's receiver. */
export interface DeliveredWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An answer over HTTP: its status and its body read as JSON (null when empty). */
export interface HttpAnswer {
  status: number;
  body: any;
}

/** The sandbox on 127.0.0.1 with every provider configured, and a receiver of its webhooks. */
export interface SandboxHarness {
  /** Where the sandbox listens (`http://127.0.0.1:<port>`). */
  url: string;
  secrets: { paystack: string; stripe: string; flutterwave: string };
  /** One request to the sandbox (`path` as sent, query included). */
  call(method: string, path: string, options?: { auth?: string; body?: unknown }): Promise<HttpAnswer>;
  /** Creates a transaction through the control API and has the customer pay when `pay` (the default). */
  transaction(provider: 'paystack' | 'stripe' | 'flutterwave', body: Record<string, unknown>, pay?: boolean): Promise<{ reference: string; id: number }>;
  /** The webhooks delivered so far. */
  readonly webhooks: readonly DeliveredWebhook[];
  close(): Promise<void>;
}

/**
 * Starts the sandbox's Nest app in-process (port 0) with Paystack, Stripe and Flutterwave
 * configured with fresh secrets, its webhooks sent to a local receiver, and a short hold for
 * injected time-outs.
 */
export async function startSandboxHarness(): Promise<SandboxHarness> {
  const webhooks: DeliveredWebhook[] = [];
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      webhooks.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const secrets = {
    paystack: `sk_test_${randomBytes(16).toString('hex')}`,
    stripe: `sk_test_${randomBytes(16).toString('hex')}`,
    flutterwave: `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`,
  };
  const sandbox: SandboxApp = await createSandboxApp(
    loadSandboxConfig({
      PAYSTACK_SECRET_KEY: secrets.paystack,
      SANDBOX_WEBHOOK_URL: `${hooks}/paystack`,
      SANDBOX_TIMEOUT_HOLD_MS: '50',
      STRIPE_SECRET_KEY: secrets.stripe,
      STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      SANDBOX_STRIPE_WEBHOOK_URL: `${hooks}/stripe`,
      FLUTTERWAVE_SECRET_KEY: secrets.flutterwave,
      FLUTTERWAVE_SECRET_HASH: randomBytes(16).toString('hex'),
      SANDBOX_FLUTTERWAVE_WEBHOOK_URL: `${hooks}/flutterwave`,
    }),
    createLogger('provider-sandbox-contract', 'silent'),
  );
  await sandbox.app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(sandbox.app.getHttpServer().address() as AddressInfo).port}`;
  const call: SandboxHarness['call'] = async (method, path, options = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.auth ? { authorization: options.auth } : {}) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  return {
    url: base,
    secrets,
    call,
    async transaction(provider, body, pay = true) {
      const created = await call('POST', `/_sandbox/${provider}/transactions`, { body });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      if (pay) await call('POST', `/_sandbox/${provider}/transactions/${encodeURIComponent(created.body.reference)}/pay`);
      return { reference: created.body.reference, id: created.body.id };
    },
    webhooks,
    async close() {
      await sandbox.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}
