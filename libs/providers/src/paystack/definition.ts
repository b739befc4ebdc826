import { z } from 'zod';
import { optionalBaseUrl, type ProviderDefinition } from '../shared/definition.js';
import { asText, bodyDigest, isMovementEventType, movementNotificationOf, parseJson, valueAt } from '../shared/webhook.js';
import { PAYSTACK_MOVEMENT_NOTIFICATIONS } from './movements.js';
import { PAYSTACK_SIGNATURE_HEADER, verifyPaystackWebhook } from './signature.js';
import { PaystackProvider } from './verify.js';

// What the folder exposes: `libs/providers/src/registry.ts` re-exports this file.
export * from './verify.js';
export * from './signature.js';
export * from './list.js';
export * from './movements.js';
export * from './movement-list.js';

const verifierEnv = z.object({
  PAYSTACK_BASE_URL: optionalBaseUrl('PAYSTACK_BASE_URL').meta({ description: "Base URL of Paystack's API; the provider is verified only when it is set." }),
});

/**
 * Paystack (docs/provider-facts.md, Paystack): verification with one secret key
 * (vault name `secret_key`); webhooks signed with the same secret key (`x-paystack-signature`,
 * hex HMAC-SHA512 of the raw body), stored in ingestion's vault as `webhook_secret`. Paystack
 * events carry no id: the SHA-256 of the verified body identifies one.
 */
export const paystackDefinition: ProviderDefinition = {
  name: 'paystack',
  label: 'Paystack',
  observedFields: {
    transaction_identity: 'data.reference',
    currency: 'data.currency',
    amount: 'data.requested_amount, else data.amount (minor units)',
    customer: 'data.customer.email and data.customer.phone',
  },
  credentialNames: ['secret_key'],
  stackVariables: {
    credentials: { secret_key: 'PAYSTACK_SECRET_KEY' },
    webhookSecret: 'PAYSTACK_SECRET_KEY',
    generated: { PAYSTACK_SECRET_KEY: { prefix: 'sk_test_', random: 'hex', bytes: 20 } },
  },
  verifier: {
    baseUrlVariable: 'PAYSTACK_BASE_URL',
    env: verifierEnv,
    async adapter(env, credential, common) {
      const baseUrl = verifierEnv.parse(env).PAYSTACK_BASE_URL;
      return baseUrl ? new PaystackProvider({ ...common, baseUrl, secretKey: await credential('secret_key') }) : null;
    },
  },
  webhook: {
    docs: {
      check: '`x-paystack-signature` = hex HMAC-SHA512 of the body, keyed with the secret key',
      eventIdentity: 'SHA-256 of the verified body (Paystack events carry no id)',
    },
    signatureHeaders: [
      {
        name: 'paystackSignature',
        header: PAYSTACK_SIGNATURE_HEADER,
        description: 'Paystack: hex HMAC-SHA512 of the raw body, keyed with the secret key (`POST /v1/webhooks/paystack`).',
      },
    ],
    route: 'plain',
    secretNames: { current: 'webhook_secret', previous: 'webhook_secret_previous' },
    referencePath: ['data', 'reference'],
    movementNotifications: PAYSTACK_MOVEMENT_NOTIFICATIONS,
    env: z.object({}),
    authenticator: () => ({
      authenticate: (request, secrets) => verifyPaystackWebhook(request.rawBody, request.headers[PAYSTACK_SIGNATURE_HEADER], secrets),
    }),
    trigger(raw) {
      const body = parseJson(raw);
      const movement = movementNotificationOf(PAYSTACK_MOVEMENT_NOTIFICATIONS, body);
      if (movement) return { ...movement, movement: true, dedupeKey: bodyDigest(raw) };
      const eventType = asText(valueAt(body, ['event']));
      // A refund or dispute event naming no payment cannot be a trigger (its `data.reference` is not the payment's).
      if (eventType && isMovementEventType(PAYSTACK_MOVEMENT_NOTIFICATIONS, eventType)) return null;
      const reference = asText(valueAt(body, ['data', 'reference']));
      return reference && eventType ? { reference, eventType, dedupeKey: bodyDigest(raw) } : null;
    },
  },
};
