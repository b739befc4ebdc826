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
 * An error to be answered as problem details. Thrown by application code; mapped to HTTP
 * by the exception filter at the edge.
 */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: Array<{ path: string; message: string }>,
  ) {
    super(detail ?? title);
    this.name = 'ProblemError';
  }

  /** The RFC 9457 body. `type` is a stable URN derived from the code. */
  toProblem(instance?: string): ProblemDetails {
    return {
      type: `urn:settle:problem:${this.code.toLowerCase()}`,
      title: this.title,
      status: this.status,
      code: this.code,
      ...(this.detail ? { detail: this.detail } : {}),
      ...(instance ? { instance } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}
