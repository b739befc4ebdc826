import { z } from 'zod';
import { optionalBaseUrl, type ProviderDefinition } from '../shared/definition.js';
import { asText, isMovementEventType, movementNotificationOf, parseJson, valueAt } from '../shared/webhook.js';
import { STRIPE_MOVEMENT_NOTIFICATIONS } from './movements.js';
import { STRIPE_DEFAULT_TOLERANCE_MS, STRIPE_SIGNATURE_HEADER, verifyStripeSignature } from './signature.js';
import { STRIPE_DEFAULT_API_VERSION, StripeProvider } from './verify.js';

// What the folder exposes: `libs/providers/src/registry.ts` re-exports this file.
export * from './verify.js';
export * from './signature.js';
export * from './list.js';
export * from './movements.js';
export * from './movement-list.js';

const verifierEnv = z.object({
  STRIPE_BASE_URL: optionalBaseUrl('STRIPE_BASE_URL').meta({ description: "Base URL of Stripe's API; the provider is verified only when it is set." }),
  STRIPE_API_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/, { error: 'STRIPE_API_VERSION must be a Stripe API version (YYYY-MM-DD or YYYY-MM-DD.name)' })
    .default(STRIPE_DEFAULT_API_VERSION)
    .meta({
      description:
        "Stripe API version sent as `Stripe-Version` on every call; the default is the version the `stripe` package's types (the sandbox's contract) are written for.",
    }),
});

const ingestionEnv = z.object({
  WEBHOOK_TOLERANCE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(STRIPE_DEFAULT_TOLERANCE_MS)
    .meta({ description: "Stripe signature tolerance window, milliseconds (Stripe's default 300 s)." }),
});

/**
 * Stripe PaymentIntents (docs/provider-facts.md, Stripe): verification with one
 * secret key (vault name `secret_key`); webhooks signed with the endpoint secret (`whsec_...`,
 * `Stripe-Signature: t=...,v1=...` within `WEBHOOK_TOLERANCE_MS`), stored in ingestion's vault
 * as `webhook_secret`. The event's `id` identifies it; the reference is the intent id.
 */
export const stripeDefinition: ProviderDefinition = {
  name: 'stripe',
  label: 'Stripe',
  observedFields: {
    transaction_identity: 'id (the PaymentIntent)',
    currency: 'currency',
    amount: 'amount_received (minor units)',
    customer: 'receipt_email, else latest_charge.billing_details.email',
  },
  credentialNames: ['secret_key'],
  stackVariables: {
    credentials: { secret_key: 'STRIPE_SECRET_KEY' },
    webhookSecret: 'STRIPE_WEBHOOK_SECRET',
    generated: {
      STRIPE_SECRET_KEY: { prefix: 'sk_test_', random: 'hex', bytes: 24 },
      STRIPE_WEBHOOK_SECRET: { prefix: 'whsec_', random: 'base64', bytes: 32 },
    },
  },
  verifier: {
    baseUrlVariable: 'STRIPE_BASE_URL',
    env: verifierEnv,
    async adapter(env, credential, common) {
      const { STRIPE_BASE_URL: baseUrl, STRIPE_API_VERSION: apiVersion } = verifierEnv.parse(env);
      return baseUrl ? new StripeProvider({ ...common, baseUrl, apiVersion, secretKey: await credential('secret_key') }) : null;
    },
  },
  webhook: {
    docs: {
      check:
        '`Stripe-Signature: t=<unix>,v1=<hex>[,v1=...]`, HMAC-SHA256 of `t.body` keyed with the endpoint secret; any `v1` may match (rotation); `t` within ±`WEBHOOK_TOLERANCE_MS` (300 000)',
      eventIdentity: 'the event `id` (`evt_...`)',
      referenceNote: '(`pi_...`)',
    },
    signatureHeaders: [
      {
        name: 'stripeSignature',
        header: STRIPE_SIGNATURE_HEADER,
        description:
          'Stripe: `t=<unix seconds>,v1=<hex>[,v1=...]`, each `v1` a hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret; ' +
          `\`t\` within ±\`WEBHOOK_TOLERANCE_MS\` (default ${STRIPE_DEFAULT_TOLERANCE_MS} ms) of receipt (\`POST /v1/webhooks/stripe\`).`,
      },
    ],
    route: 'plain',
    secretNames: { current: 'webhook_secret', previous: 'webhook_secret_previous' },
    referencePath: ['data', 'object', 'id'],
    movementNotifications: STRIPE_MOVEMENT_NOTIFICATIONS,
    env: ingestionEnv,
    authenticator(env) {
      const toleranceMs = ingestionEnv.parse(env).WEBHOOK_TOLERANCE_MS;
      return {
        authenticate: (request, secrets) =>
          verifyStripeSignature(request.rawBody, request.headers[STRIPE_SIGNATURE_HEADER], secrets, { nowMs: request.nowMs, toleranceMs }),
      };
    },
    trigger(raw) {
      const body = parseJson(raw);
      const id = asText(valueAt(body, ['id']));
      const movement = movementNotificationOf(STRIPE_MOVEMENT_NOTIFICATIONS, body);
      if (movement) return id ? { ...movement, movement: true, dedupeKey: id } : null;
      const eventType = asText(valueAt(body, ['type']));
      // A refund or dispute event naming no PaymentIntent (a charge made without one) is not Settle's payment.
      if (eventType && isMovementEventType(STRIPE_MOVEMENT_NOTIFICATIONS, eventType)) return null;
      const reference = asText(valueAt(body, ['data', 'object', 'id']));
      return reference && eventType && id ? { reference, eventType, dedupeKey: id } : null;
    },
  },
};
