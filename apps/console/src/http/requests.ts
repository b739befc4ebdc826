import { ENTITLEMENT_STATUSES, PROVIDERS, TRANSACTION_STATUSES } from '@settle/domain';
import { ADMIN_TARGET_KINDS } from '@settle/ledger';
import { ProblemError } from '@settle/platform';
import { z } from 'zod';
import { CONSOLE_ROLES } from '../auth/roles.js';
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

/** `GET /api/v1/audit` query: an actor's email, a target (kind and id together), a page. */
export const auditQuery = z
  .object({
    actor: optional(z.string().trim().toLowerCase().min(1).max(320)),
    targetKind: optional(z.enum(ADMIN_TARGET_KINDS)),
    targetId: optional(z.string().trim().min(1).max(320)),
    cursor: optional(z.string().regex(/^[1-9][0-9]{0,15}$/, 'not a cursor of this list')),
    limit: optional(z.coerce.number().int().min(1).max(100)).transform((v) => v ?? 50),
  })
  .refine((q) => (q.targetKind === undefined) === (q.targetId === undefined), {
    path: ['targetId'],
    message: 'targetKind and targetId go together',
  });

/** A console user's email as the API takes it: trimmed, lower-cased, with an `@`. */
const userEmail = z
  .string()
  .trim()
  .toLowerCase()
  .min(3)
  .max(320)
  .regex(/^[^@\s]+@[^@\s]+$/, 'an email address');

/** `POST /api/v1/users`. */
export const createUserBody = z.object({ email: userEmail, role: z.enum(CONSOLE_ROLES) }).strict();

/** `PATCH /api/v1/users/:email`: a new role, enabling or disabling, or both. */
export const updateUserBody = z
  .object({ role: z.enum(CONSOLE_ROLES).optional(), disabled: z.boolean().optional() })
  .strict()
  .refine((b) => b.role !== undefined || b.disabled !== undefined, { message: 'give role, disabled or both' });

/**
 * A path's user email, lower-cased.
 *
 * @throws ProblemError 404 `CONSOLE.USER_NOT_FOUND` for one no user can have.
 */
export function pathEmail(email: string): string {
  const parsed = userEmail.safeParse(email);
  if (!parsed.success) throw new ProblemError(404, 'CONSOLE.USER_NOT_FOUND', 'User not found');
  return parsed.data;
}
