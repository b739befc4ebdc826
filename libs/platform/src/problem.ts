import { SettleError, type ErrorKind } from '@settle/domain';

/**
 * RFC 9457 problem details, the body of every error answer over HTTP
 * (`Content-Type: application/problem+json`).
 */
export interface ProblemDetails {
  /** URI reference identifying the problem type. */
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** Stable machine-readable code, for example `CHECKOUT.CONFLICT`. */
  code: string;
  /** Field-level validation problems, when the request was invalid. */
  errors?: Array<{ path: string; message: string }>;
}

/** Media type of RFC 9457 problem details. */
export const PROBLEM_JSON = 'application/problem+json';

/**
 * The kind of an HTTP status, for {@link ProblemError}s built from a status: 400 and every
 * other 4xx `invalid`, 401 `unauthenticated`, 403 `forbidden`, 404 `not_found`, 409
 * `conflict`, 413 `too_large`, 503 `unavailable`, any other 5xx `internal`.
 */
export function kindOfStatus(status: number): ErrorKind {
  switch (status) {
    case 401:
      return 'unauthenticated';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 413:
      return 'too_large';
    case 503:
      return 'unavailable';
    default:
      return status >= 500 ? 'internal' : 'invalid';
  }
}

/**
 * The HTTP edge's own error: a request refused before it reached an application service
 * (validation of the body, the query or a path parameter, authentication, a guard), already
 * in problem-details terms. Thrown only by controllers, guards and request parsers; application
 * services throw a {@link SettleError} of their own, which the exception filter maps by kind.
 * Its `kind` follows its status ({@link kindOfStatus}), so a consumer of Settle errors treats it
 * like any other.
 */
export class ProblemError extends SettleError {
  readonly kind: ErrorKind;

  /**
   * @param status - HTTP status of the answer (4xx or 5xx).
   * @param code - stable machine-readable code, `AREA.REASON`.
   * @param title - short, human-readable summary of the problem type.
   * @param detail - explanation of this occurrence; never a secret.
   * @param errors - field-level validation problems.
   */
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: Array<{ path: string; message: string }>,
  ) {
    super(detail ?? title);
    this.name = 'ProblemError';
    this.kind = kindOfStatus(status);
  }

  /** The RFC 9457 body. `type` is a stable URN derived from the code. */
  toProblem(instance?: string): ProblemDetails {
    return problemDetails({ status: this.status, code: this.code, title: this.title, detail: this.detail, instance, errors: this.errors });
  }
}

/** Builds an RFC 9457 body; `type` is a stable URN derived from the code, absent fields are left out. */
export function problemDetails(input: {
  status: number;
  code: string;
  title: string;
  detail?: string | undefined;
  instance?: string | undefined;
  errors?: Array<{ path: string; message: string }> | undefined;
}): ProblemDetails {
  return {
    type: `urn:settle:problem:${input.code.toLowerCase()}`,
    title: input.title,
    status: input.status,
    code: input.code,
    ...(input.detail ? { detail: input.detail } : {}),
    ...(input.instance ? { instance: input.instance } : {}),
    ...(input.errors ? { errors: input.errors } : {}),
  };
}
