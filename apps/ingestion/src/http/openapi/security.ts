import { applyDecorators } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { ProviderName } from '@settle/domain';
import type { SecuritySchemeObject } from '@nestjs/swagger';
import {
  FLUTTERWAVE_SIGNATURE_HEADER,
  FLUTTERWAVE_VERIF_HASH_HEADER,
  PAYSTACK_SIGNATURE_HEADER,
  PROVIDER_REGISTRY,
  STRIPE_DEFAULT_TOLERANCE_MS,
  STRIPE_SIGNATURE_HEADER,
} from '@settle/providers';

/** Security scheme names of ingestion's document: the two kinds of API key. */
export const SECURITY = { apiKey: 'apiKey', adminApiKey: 'adminApiKey' } as const;

/**
 * How each provider's webhooks prove where they come from (docs/webhooks.md, the table), as
 * OpenAPI security schemes: a header over the raw body, named by the provider's own constant in
 * `@settle/providers`. OpenAPI 3.0 has no scheme for a body signature, so each is an `apiKey` in
 * its header whose description says what the value is. A provider whose callbacks carry no
 * signature (M-Pesa: a secret token in the path, `route: 'token'`) has none; its token is a path
 * parameter. Typed over every provider, so a new one cannot be left undocumented.
 */
export const WEBHOOK_SIGNATURES: Readonly<Record<ProviderName, ReadonlyArray<{ name: string; scheme: SecuritySchemeObject }>>> = {
  paystack: [
    {
      name: 'paystackSignature',
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: PAYSTACK_SIGNATURE_HEADER,
        description: 'Paystack: hex HMAC-SHA512 of the raw body, keyed with the secret key (`POST /v1/webhooks/paystack`).',
      },
    },
  ],
  stripe: [
    {
      name: 'stripeSignature',
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: STRIPE_SIGNATURE_HEADER,
        description:
          'Stripe: `t=<unix seconds>,v1=<hex>[,v1=...]`, each `v1` a hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret; ' +
          `\`t\` within ±\`WEBHOOK_TOLERANCE_MS\` (default ${STRIPE_DEFAULT_TOLERANCE_MS} ms) of receipt (\`POST /v1/webhooks/stripe\`).`,
      },
    },
  ],
  flutterwave: [
    {
      name: 'flutterwaveVerifHash',
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: FLUTTERWAVE_VERIF_HASH_HEADER,
        description: 'Flutterwave, `FLUTTERWAVE_WEBHOOK_MODE=verif-hash` (default): the secret hash itself (`POST /v1/webhooks/flutterwave`).',
      },
    },
    {
      name: 'flutterwaveSignature',
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: FLUTTERWAVE_SIGNATURE_HEADER,
        description:
          'Flutterwave, `FLUTTERWAVE_WEBHOOK_MODE=hmac`: base64 HMAC-SHA256 of the raw body keyed with the secret hash (`POST /v1/webhooks/flutterwave`).',
      },
    },
  ],
  mpesa: [],
};

/** The providers whose webhooks come to `POST /v1/webhooks/{provider}` (signed), and to `.../{provider}/{token}`. */
export const PROVIDERS_BY_ROUTE = {
  plain: Object.values(PROVIDER_REGISTRY)
    .filter((d) => d.webhook.route === 'plain')
    .map((d) => d.name),
  token: Object.values(PROVIDER_REGISTRY)
    .filter((d) => d.webhook.route === 'token')
    .map((d) => d.name),
} as const;

/** Every webhook signature scheme, by name, for the document's components. */
export function webhookSecuritySchemes(): Record<string, SecuritySchemeObject> {
  return Object.fromEntries(Object.values(WEBHOOK_SIGNATURES).flatMap((schemes) => schemes.map((s) => [s.name, s.scheme])));
}

/** Documents the signed webhook route's security: any one of its providers' signature schemes. */
export function ApiWebhookSignatures(): MethodDecorator & ClassDecorator {
  return applyDecorators(...PROVIDERS_BY_ROUTE.plain.flatMap((provider) => WEBHOOK_SIGNATURES[provider].map((s) => ApiSecurity(s.name))));
}
