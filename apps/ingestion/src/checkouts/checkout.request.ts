import { MAX_AMOUNT_MINOR, parseAccessPeriod, PROVIDERS, REFERENCE_PATTERN, toE164 } from '@settle/domain';
import { CheckoutError } from './checkout.errors.js';
import { z } from 'zod';

/** ISO 4217 codes known to the runtime's ICU data (a maintained source, not a hand list). */
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));

/**
 * Body of `POST /v1/checkouts`: `{ provider, reference, amount, currency, user_id,
 * customer: { email?, phone? }, entitlement, access_period }`, amount an integer in minor
 * units, access_period an ISO 8601 duration (`P1M`, `P30D`, `P1Y`; required, at most ten years).
 */
export const registerCheckoutBody = z
  .object({
    provider: z.enum(PROVIDERS, { error: `provider must be one of: ${PROVIDERS.join(', ')}` }).describe('The provider the client pays through'),
    reference: z
      .string()
      .regex(REFERENCE_PATTERN, 'reference must be 1-100 URL-safe characters')
      .describe("The provider's transaction reference (Paystack `ref_...`, Stripe `pi_...`): the idempotency key of the registration"),
    amount: z
      .number({ error: 'amount must be an integer in minor units' })
      .int('amount must be an integer in minor units')
      .positive('amount must be positive')
      .max(MAX_AMOUNT_MINOR, `amount must be at most ${MAX_AMOUNT_MINOR} minor units`)
      .describe('The expected amount: an integer in minor units (kobo, cents), written as an integer literal'),
    currency: z
      .string()
      .refine((c) => /^[A-Z]{3}$/.test(c) && ISO_4217.has(c), 'currency must be an upper-case ISO 4217 code')
      .describe('Upper-case ISO 4217 code'),
    user_id: z.string().trim().min(1).max(200).describe('The authenticated user the payment is for: whom the entitlement is granted to'),
    customer: z
      .object({
        email: z.email().max(320).optional(),
        // Stored in E.164 so the customer check compares like with like.
        phone: z
          .string()
          .max(32)
          .refine((p) => p.trim().startsWith('+') && toE164(p) !== null, 'phone must be an international number (+ and country code)')
          .transform((p) => toE164(p)!)
          .optional(),
      })
      .strict()
      .refine((c) => c.email !== undefined || c.phone !== undefined, 'customer needs an email or a phone')
      .describe("The payer, as the provider will report them: an email, a phone (+ and country code), or both (the consensus check's customer point)"),
    entitlement: z.string().trim().min(1).max(200).describe('What the payment buys, as the customer backend names it (`pro-monthly`)'),
    // Required: a settled payment must say what access it buys (docs/delivery.md, "Access periods").
    access_period: z
      .string({ error: 'access_period is required: an ISO 8601 duration such as P1M, P30D or P1Y' })
      .superRefine((text, ctx) => {
        try {
          parseAccessPeriod(text);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
        }
      })
      .describe('ISO 8601 duration of access the payment buys (`P1M`, `P30D`, `P1Y`; at most ten years)'),
  })
  .strict();

export type RegisterCheckoutBody = z.infer<typeof registerCheckoutBody>;

/**
 * Checks a reference taken from a URL path, as a command's is checked (`checkoutReference`).
 *
 * @throws CheckoutError `CHECKOUT.NOT_FOUND` (404) for a malformed reference.
 */
export function pathReference(reference: string): string {
  if (!REFERENCE_PATTERN.test(reference)) throw new CheckoutError('CHECKOUT.NOT_FOUND', 'No checkout is registered under this reference');
  return reference;
}
