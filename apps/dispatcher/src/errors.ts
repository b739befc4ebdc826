import { ProblemError } from '@settle/platform';

/** Stable codes of the dispatcher's application errors. */
export type DispatcherErrorCode = 'ENDPOINT.NOT_FOUND' | 'ENDPOINT.URL_NOT_ALLOWED' | 'EVENT.NOT_FOUND';

const HTTP: Record<DispatcherErrorCode, { status: number; title: string }> = {
  'ENDPOINT.NOT_FOUND': { status: 404, title: 'Endpoint not found' },
  'ENDPOINT.URL_NOT_ALLOWED': { status: 400, title: 'Endpoint URL not allowed' },
  'EVENT.NOT_FOUND': { status: 404, title: 'Entitlement event not found' },
};

/** An application rule of the dispatcher refused a request. Mapped to HTTP only at the edge ({@link problemOf}). */
export class DispatcherError extends Error {
  constructor(
    readonly code: DispatcherErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DispatcherError';
  }
}

/** The problem details a dispatcher error answers as (for the HTTP edge's filter); `null` for other errors. */
export function problemOf(error: unknown): ProblemError | null {
  if (!(error instanceof DispatcherError)) return null;
  const { status, title } = HTTP[error.code];
  return new ProblemError(status, error.code, title, error.message);
}
