import { z } from 'zod';
import { sandboxMetadataSchema, type SandboxTransaction, type TimeIndex } from './sandbox.core.js';

/**
 * What the simulated transaction lists share (docs/reconciliation.md, "Providers' lists"): the
 * control API's bodies for seeding many transactions at once and for failing the next list calls,
 * and reading a list call's query string. Each provider's list endpoint (its path, parameters,
 * page shape and errors) is beside its simulator.
 */

/** The query string of a list call as Fastify parses it: `created[gte]` stays a flat key. */
export type ListQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

/** One query parameter's text (the last one when it is repeated), or undefined. */
export function queryText(query: ListQuery, key: string): string | undefined {
  const value = query[key];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.at(-1);
}

/**
 * A query parameter read as an integer: `undefined` when absent, `null` when present but not a
 * decimal integer (the endpoint answers 400 then).
 */
export function queryInteger(query: ListQuery, key: string): number | null | undefined {
  const text = queryText(query, key);
  if (text === undefined) return undefined;
  return /^-?\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : null;
}

/**
 * What a bulk-seeded transaction ends as. New outcomes go at the end: the draw walks the weighted
 * ones in this order, so a body that does not weigh them draws what it drew before.
 */
export const BULK_OUTCOMES = ['success', 'declined', 'clearing', 'unpaid', 'reversed', 'refunded', 'disputed'] as const;
export type BulkOutcome = (typeof BULK_OUTCOMES)[number];

const weight = z.number().int().min(0).max(1_000_000);

/** How long after its payment a bulk-seeded refund or dispute is created, ms. */
export const BULK_MOVEMENT_DELAY_MS = 1_000;

/**
 * Body of `POST /_sandbox/:provider/transactions/bulk`: `count` transactions created at instants
 * spread evenly over `[from, until)`, references `<reference_prefix><n>` (Stripe:
 * `pi_<reference_prefix><n>`, the prefix letters and digits only) for n from 0, each ending as one
 * of `outcomes` drawn by weight with a seeded generator (the same body seeds the same book):
 * `success` (paid at its creation instant), `declined`, `clearing` (paid, still clearing until a
 * verify call clears it), `unpaid` (created, never paid), `reversed` (paid, then reversed),
 * `refunded` (paid, then refunded in full: one succeeded refund of the whole amount created
 * {@link BULK_MOVEMENT_DELAY_MS} after the payment, as the control API's refund makes it, so the
 * provider shows the payment as it shows a refunded one: Paystack `reversed`), `disputed` (paid,
 * then a dispute of the whole amount opened {@link BULK_MOVEMENT_DELAY_MS} after the payment, still
 * open, as the control API's dispute opens it: Paystack `awaiting-merchant-feedback`). An outcome
 * not given weighs 0. A refund or dispute of a payment in the window's last second is created
 * after `until`. No webhook is sent: they are history. A reference already held is left as it is
 * and counted.
 */
export const bulkSeedSchema = z
  .object({
    count: z.number().int().min(1).max(1_000_000),
    from: z.iso.datetime({ offset: true }),
    until: z.iso.datetime({ offset: true }),
    reference_prefix: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - (1 to 40)'),
    outcomes: z
      .object(Object.fromEntries(BULK_OUTCOMES.map((o) => [o, weight.optional()])) as Record<BulkOutcome, z.ZodOptional<typeof weight>>)
      .strict()
      .refine((o) => Object.values(o).some((w) => (w ?? 0) > 0), 'at least one outcome with a weight above 0')
      .default({ success: 1 }),
    /** Minor units. */
    amount: z.number().int().positive().default(10_000),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .default('NGN'),
    email: z.email().default('payer@example.com'),
    phone: z.string().optional(),
    metadata: sandboxMetadataSchema.optional(),
    /** Seed of the outcome draw. */
    seed: z.number().int().default(1),
  })
  .strict()
  .refine((b) => Date.parse(b.from) < Date.parse(b.until), { message: 'from must be before until', path: ['until'] });
export type BulkSeed = z.infer<typeof bulkSeedSchema>;

/** What a bulk seed did. */
export interface BulkResult {
  created: number;
  /** References already held, left as they were. */
  existing: number;
  first_reference: string;
  last_reference: string;
}

/**
 * Body of `POST /_sandbox/:provider/list/failures`: the next `times` list calls of the provider
 * (after their credentials are checked) answer `status` in the provider's error shape, with
 * `Retry-After: <retry_after_seconds>` when it is given (by default 1 for a 429). `times: 0`
 * clears it.
 */
export const listFailuresSchema = z
  .object({
    status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).default(429),
    times: z.number().int().min(0).max(1000),
    retry_after_seconds: z.number().int().min(0).max(3600).optional(),
  })
  .strict();

/** The list failures still to serve. */
export interface ListFailures {
  status: 429 | 500 | 502 | 503 | 504;
  remaining: number;
  /** Seconds of `Retry-After`; no header when null. */
  retryAfterSeconds: number | null;
}

/** A small seeded generator (mulberry32): the same seed draws the same outcomes. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws outcomes by weight from a seeded generator. */
export function outcomeDraw(outcomes: Partial<Record<BulkOutcome, number | undefined>>, seed: number): () => BulkOutcome {
  const entries = BULK_OUTCOMES.map((o) => [o, outcomes[o] ?? 0] as const).filter(([, w]) => w > 0);
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  const random = seededRandom(seed);
  return () => {
    let pick = random() * total;
    for (const [outcome, w] of entries) {
      if (pick < w) return outcome;
      pick -= w;
    }
    return entries.at(-1)![0];
  };
}

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/**
 * A page newest first of the positions `[lo, hi)` of an index: a slice when every transaction
 * counts (`keep` absent: binary search and slice, whatever the book's size), else a scan of the
 * range (a status filter, which the adapters never send).
 *
 * @returns the page and how many transactions of the range count.
 */
export function newestFirstPage(
  index: TimeIndex,
  lo: number,
  hi: number,
  skip: number,
  limit: number,
  keep?: (tx: SandboxTransaction) => boolean,
): { page: SandboxTransaction[]; total: number } {
  if (keep === undefined) return { page: index.newestFirst(lo, hi, skip, limit), total: hi - lo };
  const page: SandboxTransaction[] = [];
  let total = 0;
  for (let position = hi - 1; position >= lo; position--) {
    const tx = index.get(position)!;
    if (!keep(tx)) continue;
    if (total >= skip && page.length < limit) page.push(tx);
    total += 1;
  }
  return { page, total };
}

/**
 * An instant of a list filter: ISO 8601 with a zone (`2026-03-01T10:00:00.000Z`), or a date
 * (`2026-03-01`, its start in UTC; with `endOfDay`, the start of the next day). `undefined` when
 * absent, `null` when it cannot be read.
 */
export function filterInstant(text: string | undefined, endOfDay = false): number | null | undefined {
  if (text === undefined) return undefined;
  const value = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const ms = Date.parse(`${value}T00:00:00.000Z`);
    return Number.isFinite(ms) ? ms + (endOfDay ? DAY_MS : 0) : null;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * A page newest first of items held oldest first (a list by creation time that is no
 * {@link TimeIndex}: refunds, disputes): skipping `skip` of the newest, at most `limit`.
 */
export function newestFirstSlice<T>(oldestFirst: readonly T[], skip: number, limit: number): T[] {
  const page: T[] = [];
  for (let position = oldestFirst.length - 1 - skip; position >= 0 && page.length < limit; position--) page.push(oldestFirst[position]!);
  return page;
}
