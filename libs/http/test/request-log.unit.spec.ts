/**
 * The edge's logs on a small Nest app built in-process (`inject`): one JSON line per request
 * with the route template, status, duration, request id and reference (never the URL's ids, a
 * body or a header), at the level its status and route call for; and Nest's own framework logs
 * through the same pino logger.
 */
import { Writable } from 'node:stream';
import { Controller, Get, HttpCode, Logger as NestLogger, Module, Param, Post, Query } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEdgeApp, PinoNestLogger, ProblemDetailsFilter, REQUEST_ID_HEADER } from '@settle/http';
import { createLogger, ProblemError } from '@settle/platform';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

@Controller()
class TestController {
  @Get('v1/checkouts/:reference')
  read(@Param('reference') reference: string): { reference: string } {
    return { reference };
  }

  @Post('v1/checkouts')
  @HttpCode(202)
  create(): { ok: true } {
    return { ok: true };
  }

  @Get('v1/search')
  search(@Query('reference') reference: string | undefined): { found: boolean } {
    return { found: reference !== undefined };
  }

  @Get('v1/broken')
  broken(): never {
    throw new ProblemError(503, 'SERVICE.UNAVAILABLE', 'Service unavailable');
  }

  @Get('health/ready')
  ready(): { status: string } {
    return { status: 'ok' };
  }
}

/** Log lines written, parsed. */
const lines: Array<Record<string, unknown>> = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});
const logger = createLogger('edge-test', 'trace', stream);

@Module({ controllers: [TestController], providers: [{ provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(logger) }] })
class TestModule {}

let app: NestFastifyApplication;

beforeAll(async () => {
  app = await createEdgeApp(TestModule, { bodyLimitBytes: 1024, logger, metrics: new Registry() });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  lines.length = 0;
});

const requestLines = () => lines.filter((l) => l.msg === 'request');
const LEVEL = { trace: 10, debug: 20, info: 30, warn: 40, error: 50 } as const;

describe('the request log', () => {
  it('writes one line per request: method, route template, status, duration, request id and reference, at info', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/checkouts/ref_abc123',
      headers: { authorization: 'Bearer sk_do_not_log', cookie: 'session=do_not_log' },
    });
    expect(res.statusCode).toBe(200);
    const [line, ...others] = requestLines();
    expect(others).toEqual([]);
    expect(line).toMatchObject({
      level: LEVEL.info,
      app: 'edge-test',
      method: 'GET',
      route: '/v1/checkouts/:reference',
      status: 200,
      reference: 'ref_abc123',
      requestId: res.headers[REQUEST_ID_HEADER],
    });
    expect(line!.durationMs).toEqual(expect.any(Number));
    expect(line!.durationMs as number).toBeGreaterThanOrEqual(0);
    // The request id is a fresh UUID when the caller sent none.
    expect(line!.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('do_not_log');
    expect(text).not.toContain('/v1/checkouts/ref_abc123');
  });

  it('never logs a body, and names a reference given as a query parameter', async () => {
    await app.inject({ method: 'POST', url: '/v1/checkouts', payload: { password: 'body_do_not_log', amount: 1 } });
    await app.inject({ method: 'GET', url: '/v1/search?reference=ref_q1&other=x' });
    const [post, search] = requestLines();
    expect(post).toMatchObject({ method: 'POST', route: '/v1/checkouts', status: 202 });
    expect(post).not.toHaveProperty('reference');
    expect(search).toMatchObject({ route: '/v1/search', status: 200, reference: 'ref_q1' });
    expect(JSON.stringify(lines)).not.toContain('body_do_not_log');
  });

  it('keeps a well-formed X-Request-Id of the caller, and replaces one that is not', async () => {
    const kept = await app.inject({ method: 'GET', url: '/v1/checkouts/ref_1', headers: { [REQUEST_ID_HEADER]: 'upstream-42.a:b' } });
    const replaced = await app.inject({ method: 'GET', url: '/v1/checkouts/ref_1', headers: { [REQUEST_ID_HEADER]: 'bad id\twith spaces' } });
    expect(kept.headers[REQUEST_ID_HEADER]).toBe('upstream-42.a:b');
    expect(replaced.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestLines().map((l) => l.requestId)).toEqual([kept.headers[REQUEST_ID_HEADER], replaced.headers[REQUEST_ID_HEADER]]);
  });

  it('logs a 5xx at error, a 4xx at info, an unmatched route with no template, and probes at debug', async () => {
    await app.inject({ method: 'GET', url: '/v1/broken' });
    await app.inject({ method: 'GET', url: '/v1/nowhere/ref_x' });
    await app.inject({ method: 'GET', url: '/health/ready' });
    const [broken, missing, probe] = requestLines();
    expect(broken).toMatchObject({ level: LEVEL.error, route: '/v1/broken', status: 503 });
    expect(missing).toMatchObject({ level: LEVEL.info, route: null, status: 404 });
    expect(probe).toMatchObject({ level: LEVEL.debug, route: '/health/ready', status: 200 });
    expect(JSON.stringify(lines)).not.toContain('/v1/nowhere/ref_x');
  });
});

describe("Nest's framework logs", () => {
  it('go through the app’s pino logger, with Nest’s context, its boot chatter at debug', () => {
    const nest = new PinoNestLogger(logger);
    nest.log('Mapped {/v1/checkouts, POST} route', 'RouterExplorer');
    nest.log('something worth knowing', 'CheckoutsController');
    nest.warn('careful', 'SomeService');
    nest.error('it failed', 'Error: it failed\n    at somewhere (file.ts:1:1)', 'ExceptionsHandler');
    nest.verbose('fine detail');
    expect(lines.map(({ level, component, context, msg }) => ({ level, component, context, msg }))).toEqual([
      { level: LEVEL.debug, component: 'nest', context: 'RouterExplorer', msg: 'Mapped {/v1/checkouts, POST} route' },
      { level: LEVEL.info, component: 'nest', context: 'CheckoutsController', msg: 'something worth knowing' },
      { level: LEVEL.warn, component: 'nest', context: 'SomeService', msg: 'careful' },
      { level: LEVEL.error, component: 'nest', context: 'ExceptionsHandler', msg: 'it failed' },
      { level: LEVEL.trace, component: 'nest', context: undefined, msg: 'fine detail' },
    ]);
    expect(lines[3]!.stack).toContain('at somewhere');
  });

  it('replace Nest’s console logger in an edge app: a Nest Logger writes JSON through pino', () => {
    new NestLogger('SomeProvider').warn('from Nest');
    expect(lines).toEqual([expect.objectContaining({ level: LEVEL.warn, app: 'edge-test', component: 'nest', context: 'SomeProvider', msg: 'from Nest' })]);
  });
});
