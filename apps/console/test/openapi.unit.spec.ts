/**
 * The console's OpenAPI document (docs/console.md, "API"), what is particular to it: only the
 * admin API under /api/v1, a controller's problem codes merged with its routes' own, and the
 * session cookie and CSRF token required together. What every app's document must be (the
 * committed copy, answers, problems, serving) is checked in test/openapi.unit.spec.ts.
 */
import { fileURLToPath } from 'node:url';
import type { OpenAPIObject } from '@nestjs/swagger';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleOpenApi } from '../src/http/openapi/generate.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description?: string }>;
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
  it('covers the API and nothing else', () => {
    expect(operations.length).toBeGreaterThan(5);
    for (const { path } of operations) expect(path.startsWith('/api/v1/')).toBe(true);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain('post /api/v1/transactions/{reference}/reconcile');
  });

  it("lists a controller's codes beside its routes' own, per status", () => {
    const resend = operations.find((o) => o.method === 'post' && o.path === '/api/v1/events/{eventId}/resend')!;
    const unavailable = resend.op.responses['503']?.description ?? '';
    for (const code of ['CONSOLE.DELIVERY_NOT_CONFIGURED', 'CONSOLE.DISPATCHER_UNAVAILABLE', 'CONSOLE.AUDIT_UNAVAILABLE']) expect(unavailable).toContain(code);
  });

  it('asks for the session on every operation but sign-in, and the CSRF token with it on every change', () => {
    for (const { method, path, op } of operations) {
      const signIn = method === 'post' && path === '/api/v1/session';
      // One requirement naming both: the session and the token together, not either.
      expect((op.security ?? []).length, `${method} ${path}`).toBe(signIn ? 0 : 1);
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      expect(schemes.includes('session'), `${method} ${path} session`).toBe(!signIn);
      expect(schemes.includes('csrf'), `${method} ${path} csrf`).toBe(method !== 'get' && !signIn);
    }
  });
});
