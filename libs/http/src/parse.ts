import { ProblemError } from '@settle/platform';
import type { z } from 'zod';

/**
 * Parses a request body (or query) with a zod schema, or throws a 400 problem listing every
 * invalid field.
 *
 * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED` with `errors: [{ path, message }]`.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ProblemError(
    400,
    'REQUEST.VALIDATION_FAILED',
    'Invalid request body',
    'One or more fields are invalid',
    result.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })),
  );
}
