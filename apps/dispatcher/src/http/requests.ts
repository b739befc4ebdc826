import { ENTITLEMENT_EVENT_KINDS } from '@settle/domain';
import { z } from 'zod';
import { DispatcherError } from '../errors.js';

const eventKinds = z
  .array(z.enum(ENTITLEMENT_EVENT_KINDS, { error: `event kinds are: ${ENTITLEMENT_EVENT_KINDS.join(', ')}` }))
  .min(1, 'subscribe to at least one event kind')
  .transform((kinds) => [...new Set(kinds)]);

/** `POST /v1/admin/endpoints`: `{ url, event_kinds?, description? }` (every event kind when `event_kinds` is left out). */
export const createEndpointBody = z
  .object({
    url: z.string().max(2_048),
    event_kinds: eventKinds.optional(),
    description: z.string().trim().max(500).nullable().optional(),
  })
  .strict();

/** `PATCH /v1/admin/endpoints/{id}`: any of `url`, `event_kinds`, `description`. */
export const updateEndpointBody = createEndpointBody.partial().strict();

/** `POST /v1/admin/endpoints/{id}/rotate-secret`: how long the previous secret keeps signing, milliseconds (at most 7 days). */
export const rotateSecretBody = z
  .object({
    previous_secret_valid_for_ms: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400_000)
      .optional(),
  })
  .strict()
  .nullish();

/** `POST /v1/admin/endpoints/{id}/recover`: deliveries failed since `since` (ISO 8601), and events received since then it never had. */
export const recoverBody = z.object({ since: z.iso.datetime({ offset: true, error: 'since must be an ISO 8601 time' }) }).strict();

/** `POST /v1/admin/events/{event_id}/resend`: to one endpoint, or to every endpoint that had it. */
export const resendBody = z.object({ endpoint_id: z.uuid().optional() }).strict().nullish();

/** `GET /v1/admin/deliveries`: `?state=&endpoint_id=&before=&limit=` (newest first, keyset by `delivery_id`). */
export const listDeliveriesQuery = z
  .object({
    state: z.enum(['pending', 'delivered', 'failed', 'cancelled']).optional(),
    endpoint_id: z.uuid().optional(),
    before: z.coerce.number().int().positive().optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

/** An id from a URL path: a UUID, else the resource cannot exist. @throws DispatcherError `code` (404) */
export function pathId(id: string, code: 'ENDPOINT.NOT_FOUND' | 'EVENT.NOT_FOUND'): string {
  if (!z.uuid().safeParse(id).success) throw new DispatcherError(code, `No ${code === 'EVENT.NOT_FOUND' ? 'entitlement event' : 'endpoint'} has this id`);
  return id;
}
