/**
 * Parts shared by several of the console API's answers (docs/console.md, "API"). Each answer's
 * schema is declared beside the controller route that returns it (`@ApiAnswer`), where the
 * OpenAPI document collects it from; only what more than one controller's answers are built of
 * is here. Strict objects: the API tests parse real answers with the document's schemas, so a
 * field added to an answer and not to its schema (or the reverse) fails a test instead of drifting.
 */
import { ENTITLEMENT_STATUSES, PROVIDERS, TRANSACTION_STATUSES } from '@settle/domain';
import { isoTime } from '@settle/http';
import { z } from 'zod';

/** The `nextCursor` of a keyset page. */
export const cursor = z.string().nullable().describe('Cursor of the next page (pass it as `cursor`); `null` on the last page');

/** The fields of a transaction's row, in the list and in every review queue. */
export const summaryFields = {
  reference: z.string(),
  provider: z.enum(PROVIDERS),
  state: z.enum(TRANSACTION_STATUSES),
  entitlementStatus: z.enum(ENTITLEMENT_STATUSES),
  amountMinor: z.number().int().describe('Integer, minor units of `currency`'),
  currency: z.string(),
  userId: z.string().nullable(),
  email: z.string().nullable(),
  updatedAt: isoTime,
};
