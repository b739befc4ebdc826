import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { isSettleError, type ErrorKind, type SettleError } from '@settle/domain';
import { isDatabaseUnavailable, PROBLEM_JSON, ProblemError, type Logger } from '@settle/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Fastify's own client errors (body too large, bad JSON, bad content type). */
function fastifyClientError(error: unknown): ProblemError | null {
  const e = error as { statusCode?: number; code?: string; message?: string };
  if (typeof e?.statusCode !== 'number' || e.statusCode < 400 || e.statusCode >= 500 || typeof e.code !== 'string') return null;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError(413, 'REQUEST.BODY_TOO_LARGE', 'Request body too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError(415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type', 'Send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ProblemError(400, 'REQUEST.MALFORMED_JSON', 'Malformed JSON body');
    default:
      return new ProblemError(e.statusCode, 'REQUEST.INVALID', 'Invalid request');
  }
}

/**
 * HTTP status of each {@link ErrorKind}: the one place a kind becomes a status
 * (docs/architecture.md, "Errors").
 */
export const STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unavailable: 503,
  internal: 500,
};

/** Problem title of each kind, for errors that name none of their own. */
const TITLE_BY_KIND: Readonly<Record<ErrorKind, string>> = {
  invalid: 'Invalid request',
  unauthenticated: 'Unauthenticated',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  conflict: 'Conflict',
  too_large: 'Request too large',
  unavailable: 'Service unavailable',
  internal: 'Internal error',
};

/** What an `internal` error answers instead of its message. */
const INTERNAL_DETAIL = 'The request could not be completed; it is safe to retry';

/** The title a Settle error names for its problem (a `title` field of its own), else its kind's. */
function titleOf(error: SettleError): string {
  return 'title' in error && typeof error.title === 'string' ? error.title : TITLE_BY_KIND[error.kind];
}

/**
 * The problem details an error answers as:
 * - a {@link ProblemError} (the edge's own: request validation, authentication) as it is;
 * - any other {@link SettleError} by its kind ({@link STATUS_BY_KIND}), with its code, and its
 *   message as the detail, except for an `internal` error, whose message never leaves (it could
 *   name hosts or internals; messages never hold secrets, by the rule of SettleError);
 * - NestJS's and Fastify's client errors (no route, body too large, bad JSON, bad media type);
 * - the database being unreachable (down, restarting): 503 `SERVICE.UNAVAILABLE`, nothing
 *   was stored and the same request succeeds once it is back;
 * - anything else: 500 `INTERNAL`, with no detail.
 */
export function problemOf(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (isSettleError(error)) {
    return new ProblemError(STATUS_BY_KIND[error.kind], error.code, titleOf(error), error.kind === 'internal' ? INTERNAL_DETAIL : error.message);
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const fastify = fastifyClientError(error.cause);
    return (
      fastify ??
      (status === 404
        ? new ProblemError(404, 'REQUEST.NOT_FOUND', 'Not found')
        : new ProblemError(status, status === 413 ? 'REQUEST.BODY_TOO_LARGE' : 'REQUEST.INVALID', error.message))
    );
  }
  if (isDatabaseUnavailable(error)) {
    return new ProblemError(503, 'SERVICE.UNAVAILABLE', 'Service unavailable', 'The database is unreachable; retry later');
  }
  return fastifyClientError(error) ?? new ProblemError(500, 'INTERNAL', 'Internal error', INTERNAL_DETAIL);
}

/**
 * Maps every error to RFC 9457 problem details ({@link problemOf}): the only place where an
 * error becomes an HTTP status. 5xx answers are logged with their error; 503 answers carry
 * `Retry-After: 5`.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  /** @param logger - where 5xx answers are logged, with their error. */
  constructor(private readonly logger: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const problem = problemOf(error);
    if (problem.status >= 500) this.logger.error({ err: error, path: request.url }, 'request failed');
    const body = problem.toProblem(request.url.split('?')[0]);
    void reply.status(problem.status).header('content-type', PROBLEM_JSON);
    if (problem.status === 503) void reply.header('retry-after', '5');
    void reply.send(body);
  }
}
