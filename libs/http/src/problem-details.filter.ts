import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
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
 * Maps every error to RFC 9457 problem details. The database being unreachable (down,
 * restarting) answers 503 `SERVICE.UNAVAILABLE` with `Retry-After`: nothing was stored, and
 * the same request succeeds once it is back. Other unknown errors answer 500 with no detail:
 * internal messages (which could name hosts or, by mistake, secrets) never reach clients.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  /**
   * @param logger - where 5xx answers are logged, with their error.
   * @param translate - an app's own mapping of its application errors to problem details
   *   (`null` for errors it does not know), consulted before the generic mappings.
   */
  constructor(
    private readonly logger: Logger,
    private readonly translate: (error: unknown) => ProblemError | null = () => null,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    let problem: ProblemError;
    const translated = this.translate(error);
    if (translated) {
      problem = translated;
    } else if (error instanceof ProblemError) {
      problem = error;
    } else if (error instanceof HttpException) {
      const status = error.getStatus();
      const fastify = fastifyClientError(error.cause);
      problem =
        fastify ??
        (status === 404
          ? new ProblemError(404, 'REQUEST.NOT_FOUND', 'Not found')
          : new ProblemError(status, status === 413 ? 'REQUEST.BODY_TOO_LARGE' : 'REQUEST.INVALID', error.message));
    } else if (isDatabaseUnavailable(error)) {
      problem = new ProblemError(503, 'SERVICE.UNAVAILABLE', 'Service unavailable', 'The database is unreachable; retry later');
    } else {
      problem = fastifyClientError(error) ?? new ProblemError(500, 'INTERNAL', 'Internal error', 'The request could not be completed; it is safe to retry');
    }
    if (problem.status >= 500) this.logger.error({ err: error, path: request.url }, 'request failed');
    const body = problem.toProblem(request.url.split('?')[0]);
    void reply.status(problem.status).header('content-type', PROBLEM_JSON);
    if (problem.status === 503) void reply.header('retry-after', '5');
    void reply.send(body);
  }
}
