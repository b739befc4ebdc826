/**
 * The shared HTTP edge on a small Nest app built in-process (`inject`, and a listening server on
 * the loopback for what Node's HTTP parser answers before Fastify sees a request).
 */
import { connect } from 'node:net';
import { Body, Controller, Get, HttpCode, Injectable, Module, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { Registry, type Histogram } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BearerKeyGuard, createEdgeApp, HTTP_REQUEST_DURATION, MAX_HEADER_BYTES, MAX_URL_BYTES, parseBody, ProblemDetailsFilter } from '@settle/http';

const KEY_DIGEST = 'a'.repeat(64);

@Injectable()
class TestKeyGuard extends BearerKeyGuard {
  constructor() {
    super([KEY_DIGEST]);
  }
}

/** How many times a handler of the test app ran. */
let handled = 0;

@Controller('v1')
class TestController {
  @Post('things')
  @HttpCode(201)
  create(@Body() body: unknown): { amount: number } {
    handled++;
    return parseBody(z.object({ amount: z.number().int() }).strict(), body);
  }

  @Post('notes')
  @HttpCode(201)
  note(@Body() body: unknown): unknown {
    handled++;
    return body;
  }

  @Get('things/:id')
  read(@Param('id') id: string): { id: string } {
    handled++;
    return { id };
  }

  @Get('search')
  search(@Query() query: Record<string, unknown>): Record<string, unknown> {
    handled++;
    return query;
  }

  @Get('secret')
  @UseGuards(TestKeyGuard)
  secret(): { ok: true } {
    return { ok: true };
  }

  @Post('raw/:name')
  @HttpCode(200)
  raw(@Req() request: FastifyRequest & { rawBody?: Buffer }): { bytes: number; text: string } {
    return { bytes: request.rawBody?.length ?? 0, text: request.rawBody?.toString('utf8') ?? '' };
  }
}

@Module({
  controllers: [TestController],
  providers: [TestKeyGuard, { provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(pino({ level: 'silent' })) }],
})
class TestModule {}

let app: NestFastifyApplication;
let port: number;
const registry = new Registry();

beforeAll(async () => {
  app = await createEdgeApp(TestModule, { bodyLimitBytes: 1024, rawBodyRoutes: ['/v1/raw/:name'], metrics: registry, logger: pino({ level: 'silent' }) });
  await app.listen(0, '127.0.0.1');
  port = Number(new URL(await app.getUrl()).port);
});

afterAll(async () => {
  await app?.close();
});

/** Asserts an RFC 9457 answer with a code, that names no framework; returns its body. */
function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(res.body).not.toMatch(/fastify|FST_|Cannot (GET|POST)|nest/i);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:settle:problem:${code.toLowerCase()}` });
  return body;
}

const post = (url: string, payload: string, contentType?: string) =>
  app.inject({ method: 'POST', url, payload, headers: contentType ? { 'content-type': contentType } : {} });

describe('JSON bodies are read strictly', () => {
  it('accepts an unambiguous body', async () => {
    const res = await post('/v1/things', '{"amount": 100}', 'application/json; charset=utf-8');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ amount: 100 });
  });

  it('refuses a repeated key, naming its path', async () => {
    const body = expectProblem(await post('/v1/things', '{"amount": 100, "amount": 1}', 'application/json'), 400, 'REQUEST.DUPLICATE_KEY');
    expect(body.errors).toEqual([{ path: '/amount', message: expect.any(String) }]);
  });

  it.each(['100.0', '1e3', '100.0000000000000001'])('refuses the amount %s that JSON.parse reads as 100-ish, never rounds it', async (literal) => {
    const body = expectProblem(await post('/v1/things', `{"amount": ${literal}}`, 'application/json'), 400, 'REQUEST.AMBIGUOUS_NUMBER');
    expect(body.errors).toEqual([{ path: '/amount', message: expect.stringContaining(literal) }]);
  });

  it.each(['{"amount": ', '', '{"__proto__": {"x": 1}}', '{"constructor": {"prototype": {"x": 1}}}'])('refuses %j as malformed JSON', async (payload) => {
    expectProblem(await post('/v1/things', payload, 'application/json'), 400, 'REQUEST.MALFORMED_JSON');
  });

  it('refuses a body over the limit with 413', async () => {
    expectProblem(await post('/v1/things', JSON.stringify({ amount: 1, pad: 'x'.repeat(2048) }), 'application/json'), 413, 'REQUEST.BODY_TOO_LARGE');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'])(
    'refuses %s with 415 outside the raw routes',
    async (type) => {
      expectProblem(await post('/v1/things', 'amount=100', type), 415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE');
    },
  );

  it('refuses a body without a content type with 415', async () => {
    expectProblem(await app.inject({ method: 'POST', url: '/v1/things', payload: Buffer.from('{"amount": 1}') }), 415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('text that could not be stored as sent: 400 REQUEST.INVALID_CHARACTER before any handler runs', () => {
  /** Sends a request; asserts the refusal and that no handler ran; returns the problem's `errors`. */
  async function refused(request: Parameters<NestFastifyApplication['inject']>[0]): Promise<unknown> {
    const before = handled;
    const body = expectProblem(await app.inject(request), 400, 'REQUEST.INVALID_CHARACTER');
    expect(handled).toBe(before);
    expect(JSON.stringify(body)).not.toMatch(/postgres|encoding|UTF8: 0x00/i);
    return body.errors;
  }

  it.each([
    ['a NUL in a string', '{"note": "a\\u0000b"}', '/note'],
    ['a NUL in a key', '{"a\\u0000": 1}', '/a\u0000'],
    ['a lone surrogate deep in the body', '{"a": [{"b": "\\ud800"}]}', '/a/0/b'],
  ])('JSON body: %s', async (_, payload, path) => {
    expect(await refused({ method: 'POST', url: '/v1/notes', payload, headers: { 'content-type': 'application/json' } })).toEqual([
      { path, message: expect.stringMatching(/NUL|surrogate/) },
    ]);
  });

  it('JSON body: bytes that are not UTF-8 (a raw lone surrogate, latin1), never decoded to U+FFFD', async () => {
    for (const bytes of [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), Buffer.from('{"a": "caf\xe9"}', 'latin1')]) {
      expect(await refused({ method: 'POST', url: '/v1/notes', payload: bytes, headers: { 'content-type': 'application/json' } })).toEqual([
        { path: '(body)', message: expect.stringContaining('UTF-8') },
      ]);
    }
  });

  it('a path parameter (%00), a query value and a query name', async () => {
    expect(await refused({ method: 'GET', url: '/v1/things/ab%00c' })).toEqual([{ path: 'path.id', message: expect.stringContaining('NUL') }]);
    expect(await refused({ method: 'GET', url: '/v1/search?q=x%00&page=1' })).toEqual([{ path: 'query.q', message: expect.stringContaining('NUL') }]);
    expect(await refused({ method: 'GET', url: '/v1/search?q=a&q=%00' })).toEqual([{ path: 'query.q', message: expect.stringContaining('NUL') }]);
    expect(await refused({ method: 'GET', url: '/v1/search?a%00=1' })).toEqual([{ path: 'query', message: expect.stringContaining("a parameter's name") }]);
  });

  it('a header value, before a guard runs (an unauthenticated request gets the 400, not a 401)', async () => {
    expect(await refused({ method: 'GET', url: '/v1/secret', headers: { 'x-request-id': 'a\u0000b' } })).toEqual([
      { path: 'header.x-request-id', message: expect.stringContaining('NUL') },
    ]);
  });

  it('on a raw route too, for its path, query and headers (its body is read by its handler)', async () => {
    await refused({ method: 'POST', url: '/v1/raw/a%00', payload: 'x', headers: { 'content-type': 'text/plain' } });
  });

  it('other control characters, emoji and U+FFFD are ordinary text, stored as sent', async () => {
    const note = 'tab\there \u0001\u001f\u007f 😀 \ufffd';
    const res = await post('/v1/notes', JSON.stringify({ note }), 'application/json');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ note });
    const query = await app.inject({ method: 'GET', url: `/v1/search?q=${encodeURIComponent('\u0001😀')}` });
    expect(query.json()).toEqual({ q: '\u0001😀' });
  });
});

describe('raw routes keep the bytes whatever the content type', () => {
  it.each([['application/json'], ['text/plain'], ['application/x-www-form-urlencoded'], [undefined], [''], [';;;'], ['application/json; charset=']])(
    '%j',
    async (type) => {
      const payload = '{"a": 1, "a": 2, "n": 1e3}';
      const res = await app.inject({
        method: 'POST',
        url: '/v1/raw/x',
        payload: Buffer.from(payload),
        headers: type === undefined ? {} : { 'content-type': type },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ bytes: payload.length, text: payload });
    },
  );

  it('still refuses a body over the limit', async () => {
    expectProblem(await post('/v1/raw/x', 'x'.repeat(2048), 'text/plain'), 413, 'REQUEST.BODY_TOO_LARGE');
  });
});

describe('errors before routing are problems too', () => {
  it('an unknown route: 404', async () => {
    expectProblem(await app.inject({ method: 'POST', url: '/v1/nothing?x=1' }), 404, 'REQUEST.NOT_FOUND');
  });

  it('a known path with another method: 405 with Allow (RFC 9110, section 15.5.6)', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/v1/things/42' });
    expectProblem(res, 405, 'REQUEST.METHOD_NOT_ALLOWED');
    expect(String(res.headers.allow)).toMatch(/^GET(, HEAD)?$/);
    const put = await app.inject({ method: 'PUT', url: '/v1/things', payload: {} });
    expectProblem(put, 405, 'REQUEST.METHOD_NOT_ALLOWED');
    expect(String(put.headers.allow)).toBe('POST');
  });

  it('a path parameter over the router limit: 414', async () => {
    expectProblem(await app.inject({ method: 'GET', url: `/v1/things/${'a'.repeat(300)}` }), 414, 'REQUEST.URI_TOO_LONG');
  });

  it('a request target over the URL limit: 414', async () => {
    expectProblem(await app.inject({ method: 'GET', url: `/v1/things/1?q=${'a'.repeat(MAX_URL_BYTES)}` }), 414, 'REQUEST.URI_TOO_LONG');
  });

  it('a malformed percent-encoding in a path parameter: 400', async () => {
    expectProblem(await app.inject({ method: 'GET', url: '/v1/things/%zz' }), 400, 'REQUEST.MALFORMED_URL');
  });

  it('a 401 carries WWW-Authenticate (RFC 9110, section 11.6.1)', async () => {
    const missing = await app.inject({ method: 'GET', url: '/v1/secret' });
    expectProblem(missing, 401, 'AUTH.MISSING_API_KEY');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="settle"');
    const wrong = await app.inject({ method: 'GET', url: '/v1/secret', headers: { authorization: 'Bearer nope' } });
    expectProblem(wrong, 401, 'AUTH.INVALID_API_KEY');
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="settle", error="invalid_token"');
  });
});

/** Sends raw bytes to the listening app and returns the whole answer as text. */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => (chunks.length > 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(error)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.end(request);
  });
}

/** Splits a raw answer into its status and its problem body. */
function parseRaw(answer: string): { status: number; contentType: string; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n');
  expect(answer).not.toMatch(/fastify|FST_/i);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]),
    contentType: /content-type: ([^\r\n]+)/i.exec(head ?? '')?.[1] ?? '',
    body: JSON.parse(body ?? '') as Record<string, unknown>,
  };
}

describe("what Node's HTTP parser refuses is a problem too (a listening server)", () => {
  it('headers over the limit: 431', async () => {
    const answer = parseRaw(await rawExchange(`GET /v1/things/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(MAX_HEADER_BYTES + 10)}\r\n\r\n`));
    expect(answer).toMatchObject({ status: 431, contentType: 'application/problem+json', body: { code: 'REQUEST.HEADERS_TOO_LARGE' } });
  });

  it('a request line over the head limit: 414', async () => {
    const answer = parseRaw(await rawExchange(`GET /v1/things/1?q=${'a'.repeat(MAX_HEADER_BYTES + 10)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(answer).toMatchObject({ status: 414, contentType: 'application/problem+json', body: { code: 'REQUEST.URI_TOO_LONG' } });
  });

  it('bytes that are not HTTP: 400', async () => {
    const answer = parseRaw(await rawExchange('NOT HTTP AT ALL\r\n\r\n'));
    expect(answer).toMatchObject({ status: 400, contentType: 'application/problem+json', body: { code: 'REQUEST.MALFORMED_HTTP' } });
  });
});

/** A route that answers after the test lets it: a request in flight when the app starts closing. */
let releaseSlow: () => void = () => undefined;
let slowStarted: () => void = () => undefined;

@Controller('v1')
class SlowController {
  @Get('slow')
  async slow(): Promise<{ done: true }> {
    slowStarted();
    await new Promise<void>((resolve) => (releaseSlow = resolve));
    return { done: true };
  }

  @Get('fast')
  fast(): { done: true } {
    return { done: true };
  }
}

@Module({
  controllers: [SlowController],
  providers: [{ provide: APP_FILTER, useFactory: () => new ProblemDetailsFilter(pino({ level: 'silent' })) }],
})
class SlowModule {}

/** A raw keep-alive connection: what it received once the server closed it. */
function rawConnection(port: number): { socket: ReturnType<typeof connect>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
  return { socket, closed };
}

describe('a graceful close (the shutdown on SIGTERM)', () => {
  it('finishes the request in flight, answers one that arrives meanwhile 503 as a problem, refuses new connections and does not wait for keep-alive', async () => {
    const closing = await createEdgeApp(SlowModule, { bodyLimitBytes: 1024, metrics: new Registry(), logger: pino({ level: 'silent' }) });
    await closing.listen(0, '127.0.0.1');
    const closingPort = Number(new URL(await closing.getUrl()).port);
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const inFlight = rawConnection(closingPort);
    inFlight.socket.write('GET /v1/slow HTTP/1.1\r\nHost: x\r\n\r\n');
    // A client half-way through sending its request when the close begins.
    const late = rawConnection(closingPort);
    late.socket.write('GET /v1/fast HTTP/1.1\r\nHost: x\r\n');
    await started;
    const began = Date.now();
    const closed = closing.close();
    // No new connection once closing started.
    await expect(fetch(`http://127.0.0.1:${closingPort}/v1/fast`)).rejects.toThrow();
    late.socket.write('\r\n');
    const refused = await late.closed;
    expect(parseRaw(refused)).toMatchObject({
      status: 503,
      contentType: expect.stringMatching(/^application\/problem\+json/) as unknown,
      body: { code: 'SERVICE.UNAVAILABLE', status: 503 },
    });
    expect(refused).toMatch(/retry-after: 5/i);
    expect(refused).toMatch(/connection: close/i);
    releaseSlow();
    const finished = await inFlight.closed;
    expect(finished).toMatch(/^HTTP\/1\.1 200/);
    expect(finished).toContain('{"done":true}');
    expect(finished).toMatch(/connection: close/i);
    await closed;
    // Well under the client's keep-alive time-out (72 s).
    expect(Date.now() - began).toBeLessThan(3_000);
  });
});

describe('HTTP latency by route (settle_http_request_duration_seconds)', () => {
  /** The histogram's observation count per `method route status` (a fresh registry, so only this test's requests). */
  async function counts(): Promise<Record<string, number>> {
    const values = (await (registry.getSingleMetric(HTTP_REQUEST_DURATION) as Histogram<'method' | 'route' | 'status_code'>).get()).values;
    return Object.fromEntries(
      values
        .filter((v) => v.metricName === `${HTTP_REQUEST_DURATION}_count`)
        .map((v) => [`${String(v.labels.method)} ${String(v.labels.route)} ${String(v.labels.status_code)}`, v.value]),
    );
  }

  it('observes every answer under the route template and status code, never the concrete path; unrouted ones as unmatched', async () => {
    registry.resetMetrics();
    await app.inject({ method: 'GET', url: '/v1/things/ref_7PVGX8MEk85tgeEpVDtD' });
    await app.inject({ method: 'GET', url: '/v1/things/user-42?x=1' });
    await post('/v1/things', '{"amount":1,"amount":2}', 'application/json');
    await app.inject({ method: 'GET', url: '/v1/nowhere/ref_7PVGX8MEk85tgeEpVDtD' });
    await app.inject({ method: 'DELETE', url: '/v1/things' });
    await app.inject({ method: 'GET', url: '/v1/secret' });
    expect(await counts()).toEqual({
      'GET /v1/things/:id 200': 2,
      'POST /v1/things 400': 1,
      'GET unmatched 404': 1,
      'DELETE unmatched 405': 1,
      'GET /v1/secret 401': 1,
    });
    const text = await registry.getSingleMetricAsString(HTTP_REQUEST_DURATION);
    expect(text).not.toMatch(/ref_7PVGX8MEk85tgeEpVDtD|user-42/);
    expect(text).toMatch(/settle_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/things\/:id",status_code="200"\}/);
  });
});
