import { z } from 'zod';
import { optionalBaseUrl, type ProviderDefinition } from '../shared/definition.js';
import { asText, parseJson, valueAt } from '../shared/webhook.js';
import { FLUTTERWAVE_SIGNATURE_HEADER, FLUTTERWAVE_VERIF_HASH_HEADER, verifyFlutterwaveWebhook } from './signature.js';
import { FlutterwaveProvider } from './verify.js';

// What the folder exposes: `libs/providers/src/registry.ts` re-exports this file.
export * from './verify.js';
export * from './signature.js';
export * from './list.js';
export * from './movements.js';
export * from './movement-list.js';

const verifierEnv = z.object({
  FLUTTERWAVE_BASE_URL: optionalBaseUrl('FLUTTERWAVE_BASE_URL').meta({
    description: "Base URL of Flutterwave's API; the provider is verified only when it is set.",
  }),
});

const ingestionEnv = z.object({
  FLUTTERWAVE_WEBHOOK_MODE: z
    .enum(['verif-hash', 'hmac'])
    .default('verif-hash')
    .meta({ description: 'Which Flutterwave scheme the account uses: the `verif-hash` header or the HMAC variant.' }),
});

/**
 * Flutterwave v3 (docs/provider-facts.md, Flutterwave): verification with one secret key
 * (vault name `secret_key`); webhooks authenticated with the dashboard secret hash (`verif-hash`
 * header, or the HMAC variant per `FLUTTERWAVE_WEBHOOK_MODE`), stored in ingestion's vault as
 * `webhook_secret`. Flutterwave's transaction id and status identify an event; the reference is
 * our `tx_ref`.
 */
export const flutterwaveDefinition: ProviderDefinition = {
  name: 'flutterwave',
  label: 'Flutterwave',
  observedFields: {
    transaction_identity: 'data.tx_ref',
    currency: 'data.currency',
    amount: 'data.amount (major units, converted with the currency exponent)',
    customer: 'data.customer.email and data.customer.phone_number',
  },
  credentialNames: ['secret_key'],
  stackVariables: {
    credentials: { secret_key: 'FLUTTERWAVE_SECRET_KEY' },
    webhookSecret: 'FLUTTERWAVE_SECRET_HASH',
    generated: {
      FLUTTERWAVE_SECRET_KEY: { prefix: 'FLWSECK_TEST-', random: 'hex', bytes: 16, suffix: '-X' },
      FLUTTERWAVE_SECRET_HASH: { random: 'hex', bytes: 16 },
    },
  },
  verifier: {
    baseUrlVariable: 'FLUTTERWAVE_BASE_URL',
    env: verifierEnv,
    async adapter(env, credential, common) {
      const baseUrl = verifierEnv.parse(env).FLUTTERWAVE_BASE_URL;
      return baseUrl ? new FlutterwaveProvider({ ...common, baseUrl, secretKey: await credential('secret_key') }) : null;
    },
  },
  webhook: {
    docs: {
      check:
        '`verif-hash` equal to the secret hash (both sides hashed, then compared), or base64 HMAC-SHA256 of the body in `flutterwave-signature` (`FLUTTERWAVE_WEBHOOK_MODE`; the HMAC variant is unconfirmed and kept in one constant)',
      eventIdentity: '`data.id` and `data.status`',
    },
    signatureHeaders: [
      {
        name: 'flutterwaveVerifHash',
        header: FLUTTERWAVE_VERIF_HASH_HEADER,
        description: 'Flutterwave, `FLUTTERWAVE_WEBHOOK_MODE=verif-hash` (default): the secret hash itself (`POST /v1/webhooks/flutterwave`).',
      },
      {
        name: 'flutterwaveSignature',
        header: FLUTTERWAVE_SIGNATURE_HEADER,
        description:
          'Flutterwave, `FLUTTERWAVE_WEBHOOK_MODE=hmac`: base64 HMAC-SHA256 of the raw body keyed with the secret hash (`POST /v1/webhooks/flutterwave`).',
      },
    ],
    route: 'plain',
    secretNames: { current: 'webhook_secret', previous: 'webhook_secret_previous' },
    referencePath: ['data', 'tx_ref'],
    env: ingestionEnv,
    authenticator(env) {
      const mode = ingestionEnv.parse(env).FLUTTERWAVE_WEBHOOK_MODE;
      return { authenticate: (request, secrets) => verifyFlutterwaveWebhook(request.rawBody, request.headers, secrets, { mode }) };
    },
    trigger(raw) {
      const body = parseJson(raw);
      const reference = asText(valueAt(body, ['data', 'tx_ref']));
      const eventType = asText(valueAt(body, ['event']));
      const id = valueAt(body, ['data', 'id']);
      const status = asText(valueAt(body, ['data', 'status']));
      return reference && eventType && (typeof id === 'number' || typeof id === 'string') && status
        ? { reference, eventType, dedupeKey: `${String(id)}:${status}` }
        : null;
    },
  },
};
