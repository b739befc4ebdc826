import { applyDecorators } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { ProviderName } from '@settle/domain';
import type { SecuritySchemeObject } from '@nestjs/swagger';
import { PROVIDER_DEFINITIONS, PROVIDER_REGISTRY } from '@settle/providers';

/** Security scheme names of ingestion's document: the two kinds of API key. */
export const SECURITY = { apiKey: 'apiKey', adminApiKey: 'adminApiKey' } as const;

/** A provider's signature headers as OpenAPI security schemes. */
type SignatureSchemes = ReadonlyArray<{ name: string; scheme: SecuritySchemeObject }>;

/**
 * How each provider's webhooks prove where they come from (docs/webhooks.md, the table), as
 * OpenAPI security schemes: a header over the raw body, named by the provider's own constant in
 * `@settle/providers`. OpenAPI 3.0 has no scheme for a body signature, so each is an `apiKey` in
 * its header whose description says what the value is. Each provider declares its own in its
 * definition (`webhook.signatureHeaders`); one whose callbacks carry no signature (M-Pesa: a
 * secret token in the path, `route: 'token'`) has none, its token being a path parameter.
 */
export const WEBHOOK_SIGNATURES: Readonly<Record<ProviderName, SignatureSchemes>> = Object.fromEntries(
  PROVIDER_DEFINITIONS.map((d): [ProviderName, SignatureSchemes] => [
    d.name,
    d.webhook.signatureHeaders.map((h) => ({ name: h.name, scheme: { type: 'apiKey', in: 'header', name: h.header, description: h.description } })),
  ]),
) as Record<ProviderName, SignatureSchemes>;

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
