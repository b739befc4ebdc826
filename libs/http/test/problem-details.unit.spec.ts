import { NotFoundException, type ArgumentsHost } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { DomainError, SettleError, type ErrorKind } from '@settle/domain';
import { problemOf, ProblemDetailsFilter, STATUS_BY_KIND } from '@settle/http';
import { createLogger, ProblemError } from '@settle/platform';

class TestError extends SettleError {
  readonly code = 'TEST.REASON';
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Runs the filter on an error and returns what the reply got. */
function answer(error: unknown): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  const sent = { status: 0, headers: {} as Record<string, string>, body: {} as Record<string, unknown> };
  const reply = {
    status: (s: number) => ((sent.status = s), reply),
    header: (k: string, v: string) => ((sent.headers[k] = v), reply),
    send: (b: Record<string, unknown>) => ((sent.body = b), reply),
  };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => ({ url: '/v1/checkouts/ref_1?wait_ms=5' }), getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  new ProblemDetailsFilter(createLogger('test', 'fatal')).catch(error, host);
  return sent;
}

describe('the HTTP edge maps Settle errors by kind (docs/architecture.md, "Errors")', () => {
  it.each<[ErrorKind, number]>([
    ['invalid', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['too_large', 413],
    ['unavailable', 503],
    ['internal', 500],
  ])('kind %s answers %i with the error code in an RFC 9457 body', (kind, status) => {
    expect(STATUS_BY_KIND[kind]).toBe(status);
    const { status: sentStatus, headers, body } = answer(new TestError(kind, 'what happened'));
    expect(sentStatus).toBe(status);
    expect(headers['content-type']).toBe('application/problem+json');
    expect(body).toMatchObject({ status, code: 'TEST.REASON', type: 'urn:settle:problem:test.reason', instance: '/v1/checkouts/ref_1' });
    if (kind === 'internal') expect(body.detail).not.toContain('what happened');
    else expect(body.detail).toBe('what happened');
    expect(headers['retry-after']).toBe(status === 503 ? '5' : undefined);
  });

  it('a domain error answers its kind: an unknown reference 404, other terms 409', () => {
    expect(answer(new DomainError('TRANSACTION.UNKNOWN', 'No checkout is registered under reference r', 'not_found')).status).toBe(404);
    expect(answer(new DomainError('TRANSACTION.CONFLICT', 'other terms', 'conflict')).body).toMatchObject({
      status: 409,
      code: 'TRANSACTION.CONFLICT',
      title: 'Conflict',
    });
  });

  it("an error's own title is the problem's title", () => {
    class Titled extends TestError {
      readonly title = 'Checkout already registered';
    }
    expect(answer(new Titled('conflict', 'x')).body.title).toBe('Checkout already registered');
  });

  it('the message of an internal error never leaves, nor that of an unknown error', () => {
    const internal = answer(new TestError('internal', 'host db-7.internal refused, key sk_live_123'));
    expect(JSON.stringify(internal.body)).not.toContain('db-7');
    const unknown = answer(new Error('password=hunter2 at db-7.internal'));
    expect(unknown.status).toBe(500);
    expect(unknown.body.code).toBe('INTERNAL');
    expect(JSON.stringify(unknown.body)).not.toContain('hunter2');
  });

  it("the edge's own ProblemError keeps its status (a 415 included) and its field errors", () => {
    const error = new ProblemError(415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
    expect(error.kind).toBe('invalid');
    expect(answer(error).status).toBe(415);
    const validation = new ProblemError(400, 'REQUEST.VALIDATION_FAILED', 'Invalid request body', 'One or more fields are invalid', [
      { path: 'amount', message: 'bad' },
    ]);
    expect(answer(validation).body.errors).toEqual([{ path: 'amount', message: 'bad' }]);
  });

  it('a route NestJS does not know is REQUEST.NOT_FOUND', () => {
    expect(problemOf(new NotFoundException()).code).toBe('REQUEST.NOT_FOUND');
  });
});
