/**
 * Ingestion's webhook routes, generated from the provider registry: the URLs of each provider,
 * the answers of a good, a forged and a misrouted webhook. In process (Fastify's inject), with
 * the webhook inbox replaced by a recorder; the inbox itself is covered by the integration and
 * end-to-end tests.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '@settle/config';
import { ProblemDetailsFilter } from '@settle/http';
import { createLogger } from '@settle/platform';
import { signStripe, webhookAuthenticators } from '@settle/providers';
import { LOGGER, METRICS, WEBHOOK_AUTHENTICATORS, WEBHOOK_SECRETS } from '../src/tokens.js';
import { IngestionMetrics } from '../src/webhooks/webhook.metrics.js';
import { WebhookIntake } from '../src/webhooks/webhook-intake.js';
import { WebhookRepository } from '../src/webhooks/webhook.repository.js';
import { WebhooksController } from '../src/webhooks/webhooks.controller.js';

const hex = (n: number) => randomBytes(n).toString('hex');
const secrets: Record<string, string> = { paystack: `sk_test_${hex(16)}`, stripe: `whsec_${hex(16)}`, mpesa: hex(24) };
const logger = createLogger('webhooks-test', 'fatal');

/** The inbox, recording what the controller stored. */
const recorded: { verified: Array<Record<string, unknown>>; rejected: Array<Record<string, unknown>> } = { verified: [], rejected: [] };
const inbox = {
  recordVerified: (input: Record<string, unknown>) => {
    recorded.verified.push(input);
    return Promise.resolve(true);
  },
  requestVerificationAfterRejection: (input: Record<string, unknown>) => {
    recorded.rejected.push(input);
    return Promise.resolve({ kind: 'requested', requestId: 'req-1' });
  },
};

@Module({
  controllers: [WebhooksController],
  providers: [
    { provide: LOGGER, useValue: logger },
    { provide: METRICS, useValue: new IngestionMetrics() },
    // Flutterwave has no secret stored: its endpoint is not configured.
    { provide: WEBHOOK_SECRETS, useValue: { candidates: (provider: string) => (secrets[provider] ? [new Secret(secrets[provider])] : []) } },
    { provide: WEBHOOK_AUTHENTICATORS, useValue: webhookAuthenticators({ MPESA_CALLBACK_ALLOWLIST: '', WEBHOOK_TOLERANCE_MS: '300000' }) },
    { provide: WebhookRepository, useValue: inbox },
    WebhookIntake,
    { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(logger) },
  ],
})
class WebhooksTestModule {}

let app: NestFastifyApplication;

beforeAll(async () => {
  app = await NestFactory.create<NestFastifyApplication>(WebhooksTestModule, new FastifyAdapter(), { rawBody: true, logger: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  recorded.verified.length = 0;
  recorded.rejected.length = 0;
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json', ...headers } });

describe('webhook routes from the provider registry', () => {
  it('accepts a Paystack webhook signed on its raw bytes at /v1/webhooks/paystack, identified by the body digest', async () => {
    const body = JSON.stringify({ event: 'charge.success', data: { reference: 'ref_route_1', amount: 40_000 } });
    const signature = createHmac('sha512', secrets.paystack!).update(body).digest('hex');
    const response = await post('/v1/webhooks/paystack', body, { 'x-paystack-signature': signature });
    expect([response.statusCode, response.json()]).toEqual([200, { received: true }]);
    expect(recorded.verified).toEqual([
      expect.objectContaining({
        provider: 'paystack',
        reference: 'ref_route_1',
        providerEventType: 'charge.success',
        dedupeKey: createHash('sha256').update(body).digest('hex'),
      }),
    ]);
  });

  it('accepts a Stripe event by its id, and rejects a forged one with 401, asking for a verification of the named reference instead', async () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_route_1' } } });
    const good = await post('/v1/webhooks/stripe', body, { 'stripe-signature': signStripe(body, secrets.stripe!, Math.floor(Date.now() / 1000)) });
    expect(good.statusCode).toBe(200);
    expect(recorded.verified).toEqual([expect.objectContaining({ provider: 'stripe', reference: 'pi_route_1', dedupeKey: 'evt_1' })]);

    const forged = await post('/v1/webhooks/stripe', body, { 'stripe-signature': signStripe(body, `whsec_${hex(16)}`, Math.floor(Date.now() / 1000)) });
    expect([forged.statusCode, forged.json<{ code: string }>().code]).toEqual([401, 'WEBHOOK.SIGNATURE_INVALID']);
    expect(recorded.rejected).toEqual([expect.objectContaining({ provider: 'stripe', reference: 'pi_route_1' })]);
  });

  it('gates M-Pesa callbacks by the token in /v1/webhooks/mpesa/:token', async () => {
    const body = JSON.stringify({
      Body: { stkCallback: { MerchantRequestID: 'm-1', CheckoutRequestID: 'ws_CO_191220191020363925', ResultCode: 0, ResultDesc: 'ok' } },
    });
    expect((await post(`/v1/webhooks/mpesa/${secrets.mpesa}`, body)).statusCode).toBe(200);
    expect(recorded.verified).toEqual([
      expect.objectContaining({ provider: 'mpesa', reference: 'ws_CO_191220191020363925', dedupeKey: 'ws_CO_191220191020363925:0' }),
    ]);
    expect((await post(`/v1/webhooks/mpesa/${hex(24)}`, body)).statusCode).toBe(401);
  });

  it('answers 404 for an unknown provider, a URL of the wrong shape and a provider with no webhook secret', async () => {
    const code = async (url: string) => {
      const response = await post(url, '{}');
      return [response.statusCode, response.json<{ code: string }>().code];
    };
    expect(await code('/v1/webhooks/unknown-provider')).toEqual([404, 'REQUEST.NOT_FOUND']);
    expect(await code('/v1/webhooks/mpesa')).toEqual([404, 'REQUEST.NOT_FOUND']);
    expect(await code('/v1/webhooks/paystack/some-token')).toEqual([404, 'REQUEST.NOT_FOUND']);
    expect(await code('/v1/webhooks/flutterwave')).toEqual([404, 'WEBHOOK.PROVIDER_NOT_CONFIGURED']);
    expect(recorded.verified).toEqual([]);
  });
});
