import { throwError, type Observable } from 'rxjs';
import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { isSettleError, type ErrorKind, type SettleError } from '@settle/domain';
import { isDatabaseUnavailable, PROBLEM_JSON, ProblemError, type Logger } from '@settle/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemForStatus } from './http-edge.js';

/**
 * The challenge of a 401 from Settle's API keys (RFC 6750, section 3): `Authorization: Bearer <key>`.
 */
export const BEARER_CHALLENGE = 'Bearer realm="settle"';

/**
 * A 401 problem that names its own `WWW-Authenticate` challenge (RFC 9110, section 11.6.1: every
 * 401 carries at least one), for a refusal whose scheme is not the app's default (an invalid
 * API key's `error="invalid_token"`, a webhook's signature).
 */
export class UnauthenticatedProblem extends ProblemError {
  /**
   * @param code - stable code, `AREA.REASON`.
   * @param title - short summary of the problem type.
   * @param challenge - the `WWW-Authenticate` value, for example `Bearer realm="settle"`.
   * @param detail - explanation of this occurrence; never a secret.
   */
  constructor(
    code: string,
    title: string,
    readonly challenge: string,
    detail?: string,
  ) {
    super(401, code, title, detail);
    this.name = 'UnauthenticatedProblem';
  }
}

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
      return problemForStatus(e.statusCode);
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
 * - NestJS's and Fastify's client errors (no route, body too large, bad JSON, bad media type), by
 *   their status ({@link problemForStatus}), never with the framework's message;
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
      // The exception's own message is never answered: the framework's ("Cannot POST /x") names it.
      fastify ?? problemForStatus(status)
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
 * `Retry-After: 5`; 401 answers carry `WWW-Authenticate` (RFC 9110, section 11.6.1): the
 * problem's own challenge ({@link UnauthenticatedProblem}), else the app's.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  /**
   * @param logger - where 5xx answers are logged, with their error.
   * @param challenge - the app's `WWW-Authenticate` challenge for a 401 that names none;
   *   default {@link BEARER_CHALLENGE}.
   */
  constructor(
    private readonly logger: Logger,
    private readonly challenge: string = BEARER_CHALLENGE,
  ) {}

  catch(error: unknown, host: ArgumentsHost): Observable<never> | void {
    // A consumer loop's batch (an HTTP app's Kafka side: ingestion's commands topic): the error
    // reaches the loop as thrown, which retries the batch or dead-letters the record.
    if (host.getType() !== 'http') return throwError(() => error);
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const problem = problemOf(error);
    // The route template, never the URL: an M-Pesa callback's URL carries its secret token.
    if (problem.status >= 500) this.logger.error({ err: error, route: request.routeOptions?.url ?? null, requestId: request.id }, 'request failed');
    const body = problem.toProblem(request.url.split('?')[0]);
    void reply.status(problem.status).header('content-type', PROBLEM_JSON);
    if (problem.status === 503) void reply.header('retry-after', '5');
    if (problem.status === 401) void reply.header('www-authenticate', problem instanceof UnauthenticatedProblem ? problem.challenge : this.challenge);
    void reply.send(body);
  }
}
