import { z } from 'zod';
import { blankIsUnset, host, int, logLevel, optionalSecret, optionalUrl, port, readyFile, secret, shutdownTimeout, url } from './shared.js';

/** Variables that switch each optional sandbox provider on, and the ones that must come with them. */
const SANDBOX_PROVIDER_GROUPS = [
  {
    any: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'SANDBOX_STRIPE_WEBHOOK_URL'],
    requires: ['STRIPE_SECRET_KEY'],
    webhookUrl: 'SANDBOX_STRIPE_WEBHOOK_URL',
    webhookSecret: 'STRIPE_WEBHOOK_SECRET',
  },
  {
    any: ['FLUTTERWAVE_SECRET_KEY', 'FLUTTERWAVE_SECRET_HASH', 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL'],
    requires: ['FLUTTERWAVE_SECRET_KEY'],
    webhookUrl: 'SANDBOX_FLUTTERWAVE_WEBHOOK_URL',
    webhookSecret: 'FLUTTERWAVE_SECRET_HASH',
  },
  {
    any: ['MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY', 'SANDBOX_MPESA_CALLBACK_URL'],
    requires: ['MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_PASSKEY'],
    webhookUrl: null,
    webhookSecret: null,
  },
] as const;

/**
 * Provider sandbox settings. Paystack is always on; Stripe, Flutterwave and M-Pesa are each
 * on when their credentials are set (all of a provider's credentials, or none of them), and
 * their endpoints answer 503 otherwise. A webhook URL without its signing secret is refused.
 */
export const sandboxEnv = z
  .object({
    LOG_LEVEL: logLevel(),
    SANDBOX_HOST: host('sandbox'),
    SANDBOX_PORT: port('sandbox', 3100),
    PAYSTACK_SECRET_KEY: secret('PAYSTACK_SECRET_KEY').meta({ description: 'The secret key the sandbox expects as Bearer and signs its webhooks with.' }),
    SANDBOX_WEBHOOK_URL: url('SANDBOX_WEBHOOK_URL').meta({ description: "Where Paystack-style webhooks are delivered (ingestion's `/v1/webhooks/paystack`)." }),
    SANDBOX_TIMEOUT_HOLD_MS: int(30_000, 1).meta({ description: 'How long a "time out" answer holds the connection, milliseconds.' }),
    SANDBOX_WEBHOOK_RETRIES: int(4, 0).meta({
      description:
        'Retries of a webhook answered 5xx or not answered at all, after the first attempt, with exponential backoff from 0.5 s up to 5 s between attempts (real providers retry for days).',
    }),
    SETTLE_READY_FILE: readyFile(),
    SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),

    STRIPE_SECRET_KEY: optionalSecret('STRIPE_SECRET_KEY', { test: (v) => /^sk_\S+$/.test(v), hint: 'start with sk_' }).meta({
      description: 'Stripe secret key expected as `Authorization: Bearer sk_...`.',
    }),
    STRIPE_WEBHOOK_SECRET: optionalSecret('STRIPE_WEBHOOK_SECRET', { test: (v) => /^whsec_\S+$/.test(v), hint: 'start with whsec_' }).meta({
      description: 'Stripe webhook endpoint secret the `Stripe-Signature` header is computed with.',
    }),
    SANDBOX_STRIPE_WEBHOOK_URL: optionalUrl('SANDBOX_STRIPE_WEBHOOK_URL').meta({
      description: 'Where `payment_intent.*` events are delivered; unset: none are sent.',
    }),
    FLUTTERWAVE_SECRET_KEY: optionalSecret('FLUTTERWAVE_SECRET_KEY', { test: (v) => /^FLWSECK\S+$/.test(v), hint: 'start with FLWSECK' }).meta({
      description: 'Flutterwave secret key expected as `Authorization: Bearer FLWSECK...`.',
    }),
    FLUTTERWAVE_SECRET_HASH: optionalSecret('FLUTTERWAVE_SECRET_HASH').meta({
      description: 'The dashboard "secret hash" sent as the `verif-hash` webhook header.',
    }),
    SANDBOX_FLUTTERWAVE_WEBHOOK_URL: optionalUrl('SANDBOX_FLUTTERWAVE_WEBHOOK_URL').meta({
      description: 'Where `charge.completed` webhooks are delivered; unset: none are sent.',
    }),
    MPESA_CONSUMER_KEY: optionalSecret('MPESA_CONSUMER_KEY').meta({
      description: 'Daraja app consumer key (OAuth Basic credentials, with the consumer secret).',
    }),
    MPESA_CONSUMER_SECRET: optionalSecret('MPESA_CONSUMER_SECRET').meta({
      description: 'Daraja app consumer secret (OAuth Basic credentials, with the consumer key).',
    }),
    MPESA_PASSKEY: optionalSecret('MPESA_PASSKEY').meta({
      description: 'Lipa na M-Pesa Online passkey: `Password` = base64(shortcode + passkey + timestamp).',
    }),
    MPESA_SHORTCODE: z
      .preprocess(
        blankIsUnset,
        z
          .string()
          .trim()
          .regex(/^\d{5,7}$/, 'MPESA_SHORTCODE must be 5 to 7 digits')
          .default('174379'),
      )
      .meta({ description: "The business shortcode queries must name (Daraja's sandbox uses 174379)." }),
    SANDBOX_MPESA_CALLBACK_URL: optionalSecret('SANDBOX_MPESA_CALLBACK_URL', {
      test: (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && new URL(v).pathname.split('/').some(Boolean),
      hint: 'be an http(s) URL ending in a secret token path segment',
    }).meta({
      description:
        'Where STK callbacks are delivered. Its last path segment is the secret token the receiver checks (callbacks carry no signature), so the whole URL is a secret.',
    }),
    SANDBOX_MPESA_TOKEN_TTL_MS: int(3_599_000, 1).meta({ description: 'Lifetime of an M-Pesa OAuth token, milliseconds (Daraja: about an hour).' }),
  })
  .superRefine((e, ctx) => {
    const set = (name: string) => e[name as keyof typeof e] !== undefined;
    for (const group of SANDBOX_PROVIDER_GROUPS) {
      const present = group.any.filter(set);
      if (present.length === 0) continue;
      for (const name of group.requires) {
        if (!set(name)) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when ${present.join(', ')} is set` });
      }
      if (group.webhookUrl && set(group.webhookUrl) && !set(group.webhookSecret)) {
        ctx.addIssue({
          code: 'custom',
          path: [group.webhookSecret],
          message: `${group.webhookSecret} is required when ${group.webhookUrl} is set (webhooks are signed with it)`,
        });
      }
    }
  });
