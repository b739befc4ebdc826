/**
 * The HTTP edge's server spans (`installHttpTracing`), on a small Nest app built in-process
 * (`inject`) with the SDK started on an in-memory exporter.
 */
import { request as httpRequest } from 'node:http';
import { Body, Controller, Get, HttpCode, Module, Param, Post } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEdgeApp, ProblemDetailsFilter } from '@settle/http';
import { createLogger, startTracing, traceCarrierOf, type Tracing } from '@settle/platform';

/** The trace context each handler ran in (its W3C `traceparent`), by handler. */
const seen = new Map<string, string | undefined>();

@Controller('v1')
class TracedController {
  @Post('things/:reference')
  @HttpCode(201)
  async create(@Param('reference') reference: string, @Body() body: { amount: number }): Promise<{ reference: string }> {
    // After the body was read from the socket and an await: still the request's context.
    await new Promise((resolve) => setTimeout(resolve, 5));
    seen.set('create', traceCarrierOf()?.traceparent);
    return { reference: `${reference}:${body.amount}` };
  }

  @Post('checkouts')
  @HttpCode(202)
  register(@Body() body: { reference: string }): { reference: string } {
    return { reference: body.reference };
  }

  @Post('hooks/:provider/:token')
  @HttpCode(200)
  hook(): { ok: true } {
    seen.set('hook', traceCarrierOf()?.traceparent);
    return { ok: true };
  }

  @Get('broken')
  broken(): never {
    throw new Error('a bug');
  }
}

@Module({ controllers: [TracedController], providers: [{ provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(pino({ level: 'silent' })) }] })
class TracedModule {}

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let app: NestFastifyApplication;
let url: string;
const CALLER = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
const callerTraceparent = `00-${CALLER.traceId}-${CALLER.spanId}-01`;

beforeAll(async () => {
  tracing = startTracing(
    { exporter: 'console', serviceName: 'test', sampler: { kind: 'parentbased_always_on', ratio: 1 }, scheduleDelayMs: 10 },
    createLogger('http-tracing-unit', 'fatal'),
    { exporter },
  );
  app = await createEdgeApp(TracedModule, {
    bodyLimitBytes: 1024,
    untrustedTraceRoutes: ['/v1/hooks/:provider/:token'],
    metrics: new Registry(),
    logger: pino({ level: 'silent' }),
  });
  await app.listen(0, '127.0.0.1');
  url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
});

afterAll(async () => {
  await app?.close();
  await tracing?.shutdown();
});

beforeEach(() => {
  exporter.reset();
  seen.clear();
});

/** The one server span the request made. */
function serverSpan(): ReadableSpan {
  const spans = exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === '@settle/http');
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

describe('an HTTP server span per request', () => {
  it('names the route, records the conventions\u2019 attributes and the reference, and runs the handler in its context', async () => {
    // Over a real socket, the body sent after a pause: it is read in the socket's own async
    // context, after the request's hooks ran.
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${url}/v1/things/ref_http_1`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '12' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.write('{"amount"');
      setTimeout(() => request.end(':5}'), 50);
    });
    expect(status).toBe(201);
    const span = serverSpan();
    expect(span.name).toBe('POST /v1/things/:reference');
    expect(span.kind).toBe(1); // SERVER
    expect(span.attributes).toEqual({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'http.route': '/v1/things/:reference',
      'http.response.status_code': 201,
      'settle.reference': 'ref_http_1',
    });
    expect(seen.get('create')).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  it("continues a trusted caller's trace, and reads the reference from a JSON body", async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/checkouts',
      headers: { traceparent: callerTraceparent },
      payload: { reference: 'ref_http_2' },
    });
    expect(answer.statusCode).toBe(202);
    const span = serverSpan();
    expect(span.spanContext().traceId).toBe(CALLER.traceId);
    expect(span.parentSpanContext?.spanId).toBe(CALLER.spanId);
    expect(span.attributes['settle.reference']).toBe('ref_http_2');
  });

  it('starts a new trace on an untrusted route, linked to the caller\u2019s, and never records the path (it may hold a token)', async () => {
    const answer = await app.inject({ method: 'POST', url: '/v1/hooks/mpesa/t0k3n-s3cret', headers: { traceparent: callerTraceparent }, payload: {} });
    expect(answer.statusCode).toBe(200);
    const span = serverSpan();
    expect(span.spanContext().traceId).not.toBe(CALLER.traceId);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.links.map((l) => l.context.spanId)).toEqual([CALLER.spanId]);
    expect(seen.get('hook')).toContain(span.spanContext().traceId);
    expect(JSON.stringify({ name: span.name, attributes: span.attributes })).not.toContain('t0k3n');
  });

  it('marks a 5xx failed and leaves a 4xx, which is the caller\u2019s, unmarked', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/broken' })).statusCode).toBe(500);
    const failed = serverSpan();
    expect(failed.status.code).toBe(2); // ERROR
    expect(failed.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });

    exporter.reset();
    expect((await app.inject({ method: 'GET', url: '/v1/nowhere' })).statusCode).toBe(404);
    const missing = serverSpan();
    expect(missing.name).toBe('GET');
    expect(missing.status.code).toBe(0); // UNSET
    expect(missing.attributes['http.route']).toBeUndefined();
  });
});
