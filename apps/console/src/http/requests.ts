import { ENTITLEMENT_STATUSES, PROVIDERS, TRANSACTION_STATUSES } from '@settle/domain';
import { ProblemError } from '@settle/platform';
import { z } from 'zod';
import { decodeCursor, type ListCursor } from '../transactions/cursor.js';

/** `POST /api/v1/session`. */
export const signInBody = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
});

/** An empty query value is no filter. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** `GET /api/v1/transactions` query. */
export const listQuery = z.object({
  q: optional(z.string().trim().min(1).max(320)),
  provider: optional(z.enum(PROVIDERS)),
  state: optional(z.enum(TRANSACTION_STATUSES)),
  entitlement: optional(z.enum(ENTITLEMENT_STATUSES)),
  cursor: optional(z.string().max(1000)),
  limit: optional(z.coerce.number().int().min(1).max(100)).transform((v) => v ?? 50),
});

/**
 * The cursor of a list query.
 *
 * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED` when it is not a cursor the list gave.
 */
export function parseCursor(text: string | undefined): ListCursor | undefined {
  if (text === undefined) return undefined;
  const cursor = decodeCursor(text);
  if (!cursor) {
    throw new ProblemError(400, 'REQUEST.VALIDATION_FAILED', 'Invalid query', 'One or more fields are invalid', [
      { path: 'cursor', message: 'not a cursor of this list' },
    ]);
  }
  return cursor;
}

/** A transaction reference, as ingestion accepts them. */
const REFERENCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.=-]{0,99}$/;

/**
 * A path's reference.
 *
 * @throws ProblemError 404 `CONSOLE.TRANSACTION_NOT_FOUND` for one no checkout can have.
 */
export function pathReference(reference: string): string {
  if (!REFERENCE_PATTERN.test(reference)) throw new ProblemError(404, 'CONSOLE.TRANSACTION_NOT_FOUND', 'Transaction not found');
  return reference;
}

/** `GET /api/v1/queues/*` query. */
export const queueQuery = z.object({
  cursor: optional(z.string().max(1000)),
  limit: optional(z.coerce.number().int().min(1).max(100)).transform((v) => v ?? 50),
});
