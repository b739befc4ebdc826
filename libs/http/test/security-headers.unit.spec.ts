/**
 * The security headers of the shared HTTP edge (libs/http/src/security-headers.ts) on small Nest
 * apps built in-process: an API app (its default policy) and a web app, each serving Swagger UI,
 * whose page gets the hashes of its own inline styles and nothing more.
 */
import { createHash } from 'node:crypto';
import { Controller, Get, Module, Param } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_CONTENT_SECURITY_POLICY,
  buildOpenApiDocument,
  createEdgeApp,
  parseCsp,
  PERMISSIONS_POLICY,
  relaxForInlineStyles,
  serveOpenApi,
  WEB_APP_CONTENT_SECURITY_POLICY,
  type CspDirectives,
} from '@settle/http';

@Controller('v1')
class ThingsController {
  @Get('things/:id')
  read(@Param('id') id: string): { id: string } {
    return { id };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

async function appWith(policy?: CspDirectives): Promise<NestFastifyApplication> {
  const app = await createEdgeApp(ThingsModule, {
    bodyLimitBytes: 1024,
    metrics: new Registry(),
    logger: pino({ level: 'silent' }),
    ...(policy ? { contentSecurityPolicy: policy } : {}),
  });
  const document = buildOpenApiDocument(app, {
    title: 'Things',
    description: 'Test',
    version: '1',
    securitySchemes: {},
    pathPrefixes: ['/v1/'],
    controllers: [ThingsController],
  });
  serveOpenApi(app, document, { json: '/openapi.json', ui: '/docs' });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

let api: NestFastifyApplication;
let web: NestFastifyApplication;

beforeAll(async () => {
  api = await appWith();
  web = await appWith(WEB_APP_CONTENT_SECURITY_POLICY);
});

afterAll(async () => {
  await api?.close();
  await web?.close();
});

/** The headers every answer of every app carries, whatever its policy. */
function expectSecurityHeaders(headers: Record<string, unknown>): void {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['permissions-policy']).toBe(PERMISSIONS_POLICY);
  expect(String(headers['content-security-policy'])).toContain("frame-ancestors 'none'");
}

describe('every answer carries the security headers', () => {
  it("an API app's: nothing may load, nothing may frame it", async () => {
    for (const url of ['/v1/things/1', '/v1/nothing', '/v1/things/a%00b', '/openapi.json']) {
      const res = await api.inject({ method: 'GET', url });
      expectSecurityHeaders(res.headers);
      expect(parseCsp(String(res.headers['content-security-policy'])), url).toEqual(API_CONTENT_SECURITY_POLICY);
    }
  });

  it("a web app's: its own scripts, styles, images (and data:) and requests, no inline script or style", async () => {
    const res = await web.inject({ method: 'GET', url: '/v1/things/1' });
    expectSecurityHeaders(res.headers);
    const policy = parseCsp(String(res.headers['content-security-policy']));
    expect(policy).toEqual(WEB_APP_CONTENT_SECURITY_POLICY);
    expect(JSON.stringify(policy)).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|\*/);
  });

  it('an answer refused before any handler (a NUL in a path parameter) carries them too', async () => {
    const res = await web.inject({ method: 'GET', url: '/v1/things/a%00b' });
    expect(res.statusCode).toBe(400);
    expectSecurityHeaders(res.headers);
  });
});

describe("Swagger UI's page gets what its inline styles need and no more", () => {
  /** The page's inline styles, and their hashes as CSP writes them. */
  function inlineStyleHashes(html: string): string[] {
    const texts = [...[...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!), ...[...html.matchAll(/ style="([^"]*)"/g)].map((m) => m[1]!)];
    return texts.map((t) => `'sha256-${createHash('sha256').update(t).digest('base64')}'`);
  }

  it.each([
    ['an API app', () => api],
    ['a web app', () => web],
  ])('%s: style-src the hashes of its own inline styles, scripts only from its origin', async (_, app) => {
    const res = await app().inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expectSecurityHeaders(res.headers);
    const policy = parseCsp(String(res.headers['content-security-policy']));
    const hashes = inlineStyleHashes(res.body);
    expect(hashes.length).toBeGreaterThan(0);
    expect(policy['style-src']).toEqual(["'self'", "'unsafe-hashes'", ...new Set(hashes)]);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['img-src']).toEqual(["'self'", 'data:']);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(String(res.headers['content-security-policy'])).not.toContain('unsafe-inline');
    // Its scripts are files: no inline script for a policy to allow.
    expect(res.body).not.toMatch(/<script>[^<]/);
  });

  it('its assets keep the app policy', async () => {
    const res = await api.inject({ method: 'GET', url: '/docs/swagger-ui-init.js' });
    expect(res.statusCode).toBe(200);
    expect(parseCsp(String(res.headers['content-security-policy']))).toEqual(API_CONTENT_SECURITY_POLICY);
  });

  it('relaxForInlineStyles widens an API policy only by the styles a page holds', () => {
    const html = '<html><head><style>body { margin: 0 }</style></head><body><svg style="width:0"></svg></body></html>';
    const relaxed = relaxForInlineStyles(API_CONTENT_SECURITY_POLICY, html);
    expect(relaxed['default-src']).toEqual(["'none'"]);
    expect(relaxed['style-src']).toEqual(["'self'", "'unsafe-hashes'", ...inlineStyleHashes(html)]);
    expect(relaxForInlineStyles(API_CONTENT_SECURITY_POLICY, '<p>no styles</p>')['style-src']).toEqual(["'self'"]);
  });
});
