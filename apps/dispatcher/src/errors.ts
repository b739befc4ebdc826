import { ProblemError } from '@settle/platform';

/** Stable codes of the dispatcher's application errors. */
export type DispatcherErrorCode = 'ENDPOINT.NOT_FOUND' | 'ENDPOINT.URL_NOT_ALLOWED' | 'EVENT.NOT_FOUND';

const HTTP: Record<DispatcherErrorCode, { status: number; title: string }> = {
  'ENDPOINT.NOT_FOUND': { status: 404, title: 'Endpoint not found' },
  'ENDPOINT.URL_NOT_ALLOWED': { status: 400, title: 'Endpoint URL not allowed' },
  'EVENT.NOT_FOUND': { status: 404, title: 'Entitlement event not found' },
};

/** An application rule of the dispatcher refused a request. Mapped to HTTP only at the edge ({@link toProblem}). */
export class DispatcherError extends Error {
  constructor(
    readonly code: DispatcherErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DispatcherError';
  }
}

/** The problem-details error a dispatcher error answers as; other errors pass through unchanged. */
export function toProblem(error: unknown): unknown {
  if (!(error instanceof DispatcherError)) return error;
  const { status, title } = HTTP[error.code];
  return new ProblemError(status, error.code, title, error.message);
}

/** Runs an application call for a controller, answering its dispatcher errors as problem details. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toProblem(error);
  }
}
