import { z } from 'zod';
import { optionalBaseUrl, type ProviderDefinition } from '../shared/definition.js';
import { parseMpesaStkCallback, SourceAllowlist, verifyMpesaCallback } from './callback.js';
import { MpesaProvider } from './verify.js';

// What the folder exposes: `libs/providers/src/registry.ts` re-exports this file.
export * from './verify.js';
export * from './callback.js';

const verifierEnv = z.object({
  MPESA_BASE_URL: optionalBaseUrl('MPESA_BASE_URL').meta({ description: "Base URL of Daraja's API; the provider is verified only when it is set." }),
  MPESA_SHORTCODE: z
    .string()
    .regex(/^\d{5,7}$/)
    .default('174379')
    .meta({ description: "M-Pesa business short code (not a secret; Daraja's sandbox uses 174379)." }),
});

const ingestionEnv = z.object({
  MPESA_CALLBACK_ALLOWLIST: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    )
    .superRefine((entries, ctx) => {
      try {
        if (entries.length > 0) SourceAllowlist.from(entries);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'MPESA_CALLBACK_ALLOWLIST must list IP addresses or CIDR ranges' });
      }
    })
    .meta({ description: 'Optional source addresses or CIDR ranges allowed to send M-Pesa callbacks (comma-separated).' }),
});

/**
 * M-Pesa Daraja STK push (docs/provider-facts.md, M-Pesa): verification with an app's consumer
 * key and secret and the Lipa na M-Pesa pass key (vault names `consumer_key`,
 * `consumer_secret`, `passkey`); callbacks carry no signature, so a secret token in the callback
 * path (`POST /v1/webhooks/mpesa/<token>`, vault name `callback_token`) and an optional source
 * allowlist gate them. The CheckoutRequestID and ResultCode identify a callback.
 */
export const mpesaDefinition: ProviderDefinition = {
  name: 'mpesa',
  label: 'M-Pesa',
  observedFields: {
    transaction_identity: 'CheckoutRequestID',
    currency: "KES, M-Pesa's only currency (the query answer carries none)",
    amount: 'the STK push Settle initiated (the query answer carries no amount)',
    customer: 'the phone of the STK push Settle initiated',
  },
  credentialNames: ['consumer_key', 'consumer_secret', 'passkey'],
  stackVariables: {
    credentials: { consumer_key: 'MPESA_CONSUMER_KEY', consumer_secret: 'MPESA_CONSUMER_SECRET', passkey: 'MPESA_PASSKEY' },
    webhookSecret: 'MPESA_CALLBACK_TOKEN',
    generated: {
      MPESA_CONSUMER_KEY: { random: 'hex', bytes: 16 },
      MPESA_CONSUMER_SECRET: { random: 'hex', bytes: 16 },
      MPESA_PASSKEY: { random: 'hex', bytes: 32 },
      MPESA_CALLBACK_TOKEN: { random: 'hex', bytes: 24 },
    },
  },
  verifier: {
    baseUrlVariable: 'MPESA_BASE_URL',
    env: verifierEnv,
    async adapter(env, credential, common) {
      const e = verifierEnv.parse(env);
      if (!e.MPESA_BASE_URL) return null;
      return new MpesaProvider({
        ...common,
        baseUrl: e.MPESA_BASE_URL,
        consumerKey: await credential('consumer_key'),
        consumerSecret: await credential('consumer_secret'),
        passKey: await credential('passkey'),
        businessShortCode: e.MPESA_SHORTCODE,
      });
    },
  },
  webhook: {
    docs: {
      check:
        'no signature exists: the secret token in the callback path, and an optional source allowlist (`MPESA_CALLBACK_ALLOWLIST`, addresses and CIDR ranges)',
      eventIdentity: '`CheckoutRequestID` and `ResultCode`',
    },
    signatureHeaders: [],
    route: 'token',
    secretNames: { current: 'callback_token', previous: 'callback_token_previous' },
    referencePath: ['Body', 'stkCallback', 'CheckoutRequestID'],
    env: ingestionEnv,
    authenticator(env) {
      const entries = ingestionEnv.parse(env).MPESA_CALLBACK_ALLOWLIST;
      const allowlist = entries.length > 0 ? SourceAllowlist.from(entries) : null;
      return {
        authenticate(request, tokens) {
          const check = verifyMpesaCallback({ path: request.path, sourceAddress: request.sourceAddress }, { tokens, allowlist });
          if (check.ok) return check;
          return check.reason === 'SOURCE_NOT_ALLOWED' ? { ok: false, reason: check.reason, forbidden: true } : { ok: false, reason: check.reason };
        },
      };
    },
    trigger(raw) {
      const parsed = parseMpesaStkCallback(raw);
      if (!parsed.ok) return null;
      const { checkoutRequestId, resultCode } = parsed.value;
      return { reference: checkoutRequestId, eventType: 'stk_callback', dedupeKey: `${checkoutRequestId}:${resultCode}` };
    },
  },
};
