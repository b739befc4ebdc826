/**
 * The console's OpenAPI document (docs/console.md, "API"): the committed copy is the one the
 * controllers produce, every operation documents its answer and its problems, and the running
 * app serves it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenAPIObject } from '@nestjs/swagger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleOpenApi, createInertConsoleApp } from '../src/http/openapi/generate.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COMMITTED = `${ROOT}docs/api/console-openapi.json`;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
};

let document: OpenAPIObject;
const operations: Array<{ method: string; path: string; op: Operation }> = [];

beforeAll(async () => {
  document = await buildConsoleOpenApi(ROOT);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (op) operations.push({ method, path, op });
    }
  }
});

describe('the console OpenAPI document', () => {
  it('is the committed docs/api/console-openapi.json (regenerate with npm run openapi:console)', () => {
    expect(JSON.parse(readFileSync(COMMITTED, 'utf8'))).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('covers the API and nothing else', () => {
    expect(operations.length).toBeGreaterThan(5);
    for (const { path } of operations) expect(path.startsWith('/api/v1/')).toBe(true);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain('post /api/v1/transactions/{reference}/reconcile');
  });

  it('gives every operation a summary, a success answer and its problems as RFC 9457 bodies', () => {
    for (const { method, path, op } of operations) {
      const statuses = Object.keys(op.responses);
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(
        statuses.some((s) => s.startsWith('2')),
        `${method} ${path} has a 2xx`,
      ).toBe(true);
      const problems = statuses.filter((s) => /^[45]/.test(s));
      expect(problems.length, `${method} ${path} has problems`).toBeGreaterThan(0);
      for (const s of problems) expect(Object.keys(op.responses[s]!.content ?? {}), `${method} ${path} ${s}`).toEqual(['application/problem+json']);
    }
  });

  it("lists the HTTP edge's refusals on every operation with a JSON body, and a controller's codes beside its routes' own", () => {
    const withBody = operations.filter(({ op }) => 'requestBody' in op);
    expect(withBody.length).toBeGreaterThan(3);
    for (const { method, path, op } of withBody) {
      expect(op.responses['400']?.description, `${method} ${path}`).toContain('REQUEST.DUPLICATE_KEY');
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
    }
    const resend = operations.find((o) => o.method === 'post' && o.path === '/api/v1/events/{eventId}/resend')!;
    const unavailable = resend.op.responses['503']?.description ?? '';
    for (const code of ['CONSOLE.DELIVERY_NOT_CONFIGURED', 'CONSOLE.DISPATCHER_UNAVAILABLE', 'CONSOLE.AUDIT_UNAVAILABLE']) expect(unavailable).toContain(code);
  });

  it('asks for the session on every operation but sign-in, and the CSRF token on every change', () => {
    for (const { method, path, op } of operations) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const signIn = method === 'post' && path === '/api/v1/session';
      expect(schemes.includes('session'), `${method} ${path} session`).toBe(!signIn);
      expect(schemes.includes('csrf'), `${method} ${path} csrf`).toBe(method !== 'get' && !signIn);
    }
  });
});

describe('the console serving its document', () => {
  let inert: Awaited<ReturnType<typeof createInertConsoleApp>>;
  beforeAll(async () => {
    inert = await createInertConsoleApp(ROOT);
    await inert.app.init();
    await inert.app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await inert?.app.close();
    await inert?.pool.end();
  });

  it('answers the document at /api/openapi.json and a browsable page at /api/docs', async () => {
    const json = await inert.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(json.statusCode).toBe(200);
    expect(json.json().paths).toEqual(JSON.parse(JSON.stringify(document.paths)));
    const page = await inert.app.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });
});
