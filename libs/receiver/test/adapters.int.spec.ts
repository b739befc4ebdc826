import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler, createReceiver, MemoryReceiverStore } from '../src/index.js';
import { SETTLE_RECEIVER, SettleReceiverModule } from '../src/nestjs.js';
import { delivery, entitlementEvent, newSecret, waitFor } from './support/delivery.js';

const secret = newSecret();
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const newReceiver = () => createReceiver({ secrets: [secret], store: new MemoryReceiverStore(), logger: quiet, processor: { pollIntervalMs: 20 } });

async function listen(server: http.Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** POSTs a signed event (or a tampered copy) and returns the answer. */
async function post(url: string, options: { tamper?: boolean } = {}) {
  const event = entitlementEvent({ expires_at: '2027-03-01T00:00:00.000Z' });
  const { body, headers } = delivery(event, [secret]);
  const response = await fetch(url, { method: 'POST', headers, body: options.tamper ? body.replace('2027', '2099') : body });
  return { event, status: response.status, contentType: response.headers.get('content-type'), body: await response.json() };
}

/** The end-to-end checks every adapter must pass: 200 for a signed event, 401 problem for a tampered one, expiry applied. */
async function acceptsSignedEvents(url: string, receiver: ReturnType<typeof newReceiver>, { processes = true } = {}) {
  const ok = await post(url);
  expect(ok).toMatchObject({ status: 200, body: { received: true } });
  expect(ok.contentType).toMatch(/^application\/json/);
  const refused = await post(url, { tamper: true });
  expect(refused).toMatchObject({ status: 401, body: { code: 'RECEIVER.SIGNATURE_INVALID' } });
  expect(refused.contentType).toMatch(/^application\/problem\+json/);
  if (processes) await receiver.processDue();
  await waitFor(async () => ((await receiver.find(ok.event.event_id))?.state === 'processed' ? true : undefined), 'the event to be processed');
  expect(await receiver.accessExpiry('user-42', 'pro-monthly')).toEqual(new Date('2027-03-01T00:00:00.000Z'));
}

describe('node:http', () => {
  it('accepts a signed event end to end', async () => {
    const receiver = newReceiver();
    const url = await listen(http.createServer(createNodeHandler(receiver)));
    await acceptsSignedEvents(url, receiver);
  });

  it('answers 413 beyond the size limit and 405 for other methods', async () => {
    const url = await listen(http.createServer(createNodeHandler(newReceiver(), { limitBytes: 64 })));
    const big = await fetch(url, { method: 'POST', body: 'x'.repeat(65) });
    expect([big.status, big.headers.get('content-type'), ((await big.json()) as { code: string }).code]).toEqual([
      413,
      'application/problem+json',
      'RECEIVER.PAYLOAD_TOO_LARGE',
    ]);
    const get = await fetch(url);
    expect([get.status, get.headers.get('allow'), ((await get.json()) as { code: string }).code]).toEqual([405, 'POST', 'RECEIVER.METHOD_NOT_ALLOWED']);
  });
});

describe('Express', () => {
  it('accepts a signed event when mounted before the JSON parser (the handler reads the body)', async () => {
    const receiver = newReceiver();
    const app = express();
    app.post('/webhook/settle', createNodeHandler(receiver));
    app.use(express.json());
    await acceptsSignedEvents(`${await listen(http.createServer(app))}/webhook/settle`, receiver);
  });

  it('accepts a signed event after express.raw()', async () => {
    const receiver = newReceiver();
    const app = express();
    app.post('/webhook/settle', express.raw({ type: 'application/json' }), createNodeHandler(receiver));
    await acceptsSignedEvents(`${await listen(http.createServer(app))}/webhook/settle`, receiver);
  });

  it('answers 500 RECEIVER.RAW_BODY_UNAVAILABLE when express.json() consumed the body first', async () => {
    const app = express();
    app.use(express.json());
    app.post('/webhook/settle', createNodeHandler(newReceiver()));
    const answer = await post(`${await listen(http.createServer(app))}/webhook/settle`);
    expect(answer).toMatchObject({ status: 500, body: { code: 'RECEIVER.RAW_BODY_UNAVAILABLE' } });
  });
});

describe('Fastify', () => {
  async function fastifyUrl(app: ReturnType<typeof Fastify>): Promise<string> {
    cleanups.push(() => app.close());
    return `${await app.listen({ port: 0, host: '127.0.0.1' })}/webhook/settle`;
  }

  it('accepts a signed event with a raw-buffer content-type parser and receive()', async () => {
    const receiver = newReceiver();
    const app = Fastify();
    await app.register(async (scope) => {
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.post('/webhook/settle', async (request, reply) => {
        const result = await receiver.receive(request.body as Buffer, request.headers);
        return reply.code(result.status).headers(result.headers).send(JSON.stringify(result.body));
      });
    });
    await acceptsSignedEvents(await fastifyUrl(app), receiver);
  });

  it('accepts a signed event through the node handler on request.raw', async () => {
    const receiver = newReceiver();
    const handler = createNodeHandler(receiver);
    const app = Fastify();
    await app.register(async (scope) => {
      // Leave the body unread for the handler.
      scope.addContentTypeParser('application/json', (_request, _payload, done) => done(null));
      scope.post('/webhook/settle', (request, reply) => {
        reply.hijack();
        handler(request.raw, reply.raw);
      });
    });
    await acceptsSignedEvents(await fastifyUrl(app), receiver);
  });
});

const platforms = [
  ['Fastify', () => new FastifyAdapter()],
  ['express', () => new ExpressAdapter()],
] as const;

describe.each(platforms)('NestJS module on %s', (_, platform) => {
  it('accepts a signed event end to end, and starts and stops the processor with the application', async () => {
    const receiver = newReceiver();
    const app = await NestFactory.create(SettleReceiverModule.forRoot({ path: 'webhook/settle', receiver }), platform(), { rawBody: true, logger: false });
    cleanups.push(() => app.close());
    await app.listen(0, '127.0.0.1');
    // No processDue(): the module started the processor on bootstrap.
    await acceptsSignedEvents(`${await app.getUrl()}/webhook/settle`, receiver, { processes: false });
  });

  it("forRootAsync: the receiver built by a factory injected with the application's own providers (its configuration, a service its handler calls)", async () => {
    const welcomed: string[] = [];
    @Injectable()
    class WelcomeMailer {
      welcome(userId: string): void {
        welcomed.push(userId);
      }
    }
    /** The application's configuration, where the secrets come from. */
    const SETTINGS = Symbol('SETTINGS');
    @Module({ providers: [WelcomeMailer, { provide: SETTINGS, useValue: { webhookSecrets: secret } }], exports: [WelcomeMailer, SETTINGS] })
    class SettingsModule {}
    let built: ReturnType<typeof newReceiver> | undefined;
    const app = await NestFactory.create(
      SettleReceiverModule.forRootAsync({
        path: 'webhook/settle',
        imports: [SettingsModule],
        inject: [SETTINGS, WelcomeMailer],
        useFactory: async (settings: { webhookSecrets: string }, mailer: WelcomeMailer) => {
          built = createReceiver({
            secrets: settings.webhookSecrets.split(','),
            store: new MemoryReceiverStore(),
            logger: quiet,
            processor: { pollIntervalMs: 20 },
            handlers: { subscription_started: (event) => mailer.welcome(event.user_id) },
          });
          return built;
        },
      }),
      platform(),
      { rawBody: true, logger: false },
    );
    cleanups.push(() => app.close());
    await app.listen(0, '127.0.0.1');
    expect(app.get(SETTLE_RECEIVER)).toBe(built);
    await acceptsSignedEvents(`${await app.getUrl()}/webhook/settle`, built!, { processes: false });
    expect(welcomed).toEqual(['user-42']);
  });

  it('answers 500 RECEIVER.RAW_BODY_UNAVAILABLE when the application was created without rawBody', async () => {
    const app = await NestFactory.create(
      SettleReceiverModule.forRoot({ path: 'webhook/settle', receiver: newReceiver(), manageLifecycle: false }),
      platform(),
      { logger: false },
    );
    cleanups.push(() => app.close());
    await app.listen(0, '127.0.0.1');
    const answer = await post(`${await app.getUrl()}/webhook/settle`);
    expect(answer).toMatchObject({
      status: 500,
      body: { code: 'RECEIVER.RAW_BODY_UNAVAILABLE', detail: 'create the Nest application with { rawBody: true }' },
    });
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
  });
});
