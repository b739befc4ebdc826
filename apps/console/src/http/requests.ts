import { ENTITLEMENT_STATUSES, isWellFormedReference, PROVIDERS, TRANSACTION_STATUSES } from '@settle/domain';
import { ADMIN_TARGET_KINDS } from '@settle/ledger';
import { parseBody } from '@settle/http';
import { ProblemError } from '@settle/platform';
import { z } from 'zod';
import { CONSOLE_ROLES } from '../auth/roles.js';

/** `POST /api/v1/session`. */
export const signInBody = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
});

/** An empty query value is no filter. */
const optional = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** `GET /api/v1/transactions` query; `from` and `to` bound the last change (`updated_at`), ISO 8601 with an offset, `from` inclusive, `to` exclusive. */
export const listQuery = z
  .object({
    q: optional(z.string().trim().min(1).max(320)),
    provider: optional(z.enum(PROVIDERS)),
    state: optional(z.enum(TRANSACTION_STATUSES)),
    entitlement: optional(z.enum(ENTITLEMENT_STATUSES)),
    from: optional(z.iso.datetime({ offset: true }).describe('Last changed at or after, ISO 8601')),
    to: optional(z.iso.datetime({ offset: true }).describe('Last changed before, ISO 8601')),
    cursor: optional(z.string().max(1000)),
    limit: optional(z.coerce.number().int().min(1).max(100)).transform((v) => v ?? 50),
  })
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) < Date.parse(q.to), {
    path: ['to'],
    message: 'to must be after from',
  });

/**
 * A path's reference.
 *
 * @throws ProblemError 404 `CONSOLE.TRANSACTION_NOT_FOUND` for one no checkout can have.
 */
export function pathReference(reference: string): string {
  if (!isWellFormedReference(reference)) throw new ProblemError(404, 'CONSOLE.TRANSACTION_NOT_FOUND', 'Transaction not found');
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

/** A path's UUID (an endpoint's or an entitlement event's id). */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A path's endpoint id.
 *
 * @throws ProblemError 404 `CONSOLE.ENDPOINT_NOT_FOUND` for one no endpoint can have (not a UUID).
 */
export function pathEndpointId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new ProblemError(404, 'CONSOLE.ENDPOINT_NOT_FOUND', 'Endpoint not found');
  return id.toLowerCase();
}

/**
 * A path's entitlement event id.
 *
 * @throws ProblemError 404 `CONSOLE.EVENT_NOT_FOUND` for one no event can have (not a UUID).
 */
export function pathEventId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new ProblemError(404, 'CONSOLE.EVENT_NOT_FOUND', 'Entitlement event not found');
  return id.toLowerCase();
}

/** `GET /api/v1/deliveries` query: `state`, `endpointId`, `cursor` (the previous page's `nextCursor`), `limit` 1..100 (default 50). */
export const deliveriesQuery = z.object({
  state: optional(z.enum(['pending', 'delivered', 'failed', 'cancelled'])),
  endpointId: optional(z.string().regex(UUID_PATTERN, 'not an endpoint id')),
  cursor: optional(
    z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, 'not a cursor of this list')
      .transform(Number),
  ),
  limit: optional(z.coerce.number().int().min(1).max(100)).transform((v) => v ?? 50),
});

/** `POST /api/v1/events/:eventId/resend`: to one endpoint, or (empty body) to every endpoint that had the event. */
export const resendBody = z
  .object({ endpointId: z.string().regex(UUID_PATTERN, 'not an endpoint id').optional() })
  .strict()
  .nullish();

/**
 * How far back a recovery may reach from the console: 30 days, milliseconds (docs/console.md,
 * "Decisions"). The dispatcher keeps every event, but a recovery re-sends every event since the
 * time the endpoint never had: a month is longer than any outage the retry schedule (about four
 * days) and the automatic disabling (five days) leave behind, and short enough that a mistyped
 * year cannot flood a customer with its whole history.
 */
export const RECOVER_MAX_AGE_MS = 30 * 86_400_000;

/**
 * `POST /api/v1/endpoints/:id/recover` `{ since }`: an ISO 8601 time with its offset, not in the
 * future and at most {@link RECOVER_MAX_AGE_MS} ago.
 *
 * @param now - the current time.
 * @returns the time as a Date.
 * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED` (field `since`).
 */
export function parseRecoverSince(body: unknown, now: Date): Date {
  const { since } = parseBody(z.object({ since: z.iso.datetime({ offset: true, error: 'since must be an ISO 8601 time with its offset' }) }).strict(), body);
  const at = new Date(since);
  const refuse = (message: string) =>
    new ProblemError(400, 'REQUEST.VALIDATION_FAILED', 'Invalid request body', 'One or more fields are invalid', [{ path: 'since', message }]);
  if (at.getTime() > now.getTime()) throw refuse('since is in the future');
  if (now.getTime() - at.getTime() > RECOVER_MAX_AGE_MS) throw refuse('since is more than 30 days ago');
  return at;
}
