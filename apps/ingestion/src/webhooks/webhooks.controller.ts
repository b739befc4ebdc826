import { isUtf8 } from 'node:buffer';
import { Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  ambiguityProblem,
  ApiAnswer,
  ApiProblems,
  findJsonAmbiguities,
  INVALID_CHARACTER,
  stringsAtPath,
  UnauthenticatedProblem,
  type JsonAmbiguity,
} from '@settle/http';
import { ProblemError, type Logger } from '@settle/platform';
import { PROVIDER_REGISTRY, providerDefinition, type ProviderDefinition, type WebhookAuthenticator } from '@settle/providers';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { webhookAnswer } from '../http/openapi/answers.js';
import { ApiWebhookSignatures, PROVIDERS_BY_ROUTE } from '../http/openapi/security.js';
import { LOGGER, METRICS, WEBHOOK_AUTHENTICATORS, WEBHOOK_SECRETS } from '../tokens.js';
import { bodyDigest, isWellFormedReference, untrustedReference, webhookTrigger, type WebhookProvider } from './webhook-events.js';
import type { IngestionMetrics } from './webhook.metrics.js';
import type { WebhookSecrets } from './webhook-secrets.js';
import type { VerificationRequestOutcome } from '../verification/verification-requests.js';
import { WebhookRepository } from './webhook.repository.js';

/**
 * `WWW-Authenticate` of a webhook's 401 (RFC 9110, section 11.6.1): no registered scheme
 * describes a provider's body signature, so the challenge names `Signature` and the realm
 * (docs/webhooks.md, "Answers").
 */
export const WEBHOOK_CHALLENGE = 'Signature realm="settle-webhooks"';

/**
 * Provider webhooks, one parameterised route for every provider of the registry
 * (`@settle/providers`, `PROVIDER_REGISTRY`): `POST /v1/webhooks/<provider>` (Paystack:
 * `x-paystack-signature`; Stripe: `Stripe-Signature` within the tolerance window; Flutterwave:
 * `verif-hash` or its HMAC variant) and `POST /v1/webhooks/<provider>/<token>` for a provider
 * whose callbacks carry no signature (M-Pesa: a secret token in the path, and an optional
 * source allowlist). Each signature is verified on the exact raw bytes before the payload is
 * read, against the current and previous secrets (rotation grace period). A verified webhook
 * is only a trigger: the verifier still asks the provider directly (a bare HTTP 200 grants
 * nothing). The answer is 200 `{ received: true }` once the event is durable (committed to the
 * inbox and outbox); a duplicate answers the same and stores nothing new; a failure to make it
 * durable answers 503 so the provider retries. A rejected webhook answers 401 (403 for an
 * M-Pesa callback from a source outside the allowlist), is counted, is never published as a
 * provider event, and, when it names a known checkout, triggers a REST verification instead
 * (coalesced per reference: docs/webhooks.md, "Spoofed webhooks and repeated verifications").
 * An unknown provider, or a URL of the wrong shape for the provider, answers 404 as an unknown
 * route does (`REQUEST.NOT_FOUND`). The body is read as raw bytes whatever its content type
 * (the signature covers the bytes, not the header); a verified body with a repeated key
 * answers 400 `REQUEST.DUPLICATE_KEY`, and each known checkout it names is verified by REST
 * (docs/webhooks.md, "Ambiguous bodies").
 */
/** The request body of every webhook route, for the OpenAPI document: the provider's bytes, whatever their type. */
const ApiWebhookBody = () =>
  ApiBody({
    required: true,
    description:
      'The provider\'s event exactly as it sent it: read as raw bytes whatever the `Content-Type` (the signature covers the bytes), then as the provider\'s JSON (docs/webhooks.md, "Content types").',
    schema: { type: 'object', additionalProperties: true },
  });

@ApiTags('webhooks')
@ApiProblems(
  [400, 'WEBHOOK.EMPTY_BODY'],
  [400, 'WEBHOOK.MALFORMED'],
  [400, 'REQUEST.DUPLICATE_KEY'],
  [400, 'REQUEST.INVALID_CHARACTER'],
  [401, 'WEBHOOK.SIGNATURE_INVALID'],
  [404, 'WEBHOOK.PROVIDER_NOT_CONFIGURED'],
  [404, 'REQUEST.NOT_FOUND'],
  [413, 'REQUEST.BODY_TOO_LARGE'],
  [503, 'WEBHOOK.NOT_DURABLE'],
)
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    @Inject(WEBHOOK_AUTHENTICATORS) private readonly authenticators: Readonly<Record<WebhookProvider, WebhookAuthenticator>>,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: IngestionMetrics,
    @Inject(WEBHOOK_SECRETS) private readonly secrets: Pick<WebhookSecrets, 'candidates'>,
    private readonly webhooks: WebhookRepository,
  ) {}

  /** A provider whose webhooks carry a signature (or none: see the token route). */
  @Post(':provider')
  @HttpCode(200)
  @ApiOperation({
    summary: "A provider's signed webhook",
    description:
      "Authenticated by the provider's signature over the raw body (one of the security schemes, by provider), checked against the current and previous secrets before anything reads the body. Answered once the event is durable; a duplicate answers the same and stores nothing new. A webhook is only a trigger: the verifier still asks the provider. A rejected one that names a known checkout triggers a REST verification instead (docs/webhooks.md).",
  })
  @ApiParam({ name: 'provider', enum: PROVIDERS_BY_ROUTE.plain, description: 'The provider sending the webhook' })
  @ApiWebhookSignatures()
  @ApiWebhookBody()
  @ApiAnswer(200, webhookAnswer, 'The event is durable (or was already)')
  async signed(@Param('provider') name: string, @Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    return this.receive(this.definition(name, 'plain'), request);
  }

  /**
   * A provider gated by a secret token in the callback path (M-Pesa STK callbacks: no signature
   * exists); its content is only ever a trigger for a status query.
   */
  @Post(':provider/:token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'A callback gated by a secret token',
    description:
      'For a provider whose callbacks carry no signature (M-Pesa STK callbacks): the secret token in the path authenticates it, and an optional source allowlist (`MPESA_CALLBACK_ALLOWLIST`) bounds who may post. Its content is only ever a trigger for a status query.',
  })
  @ApiParam({ name: 'provider', enum: PROVIDERS_BY_ROUTE.token, description: 'The provider sending the callback' })
  @ApiParam({ name: 'token', description: "The callback's secret token (the provider's webhook secret in ingestion's vault); a wrong token answers 401" })
  @ApiWebhookBody()
  @ApiAnswer(200, webhookAnswer, 'The event is durable (or was already)')
  @ApiProblems([403, 'WEBHOOK.SOURCE_NOT_ALLOWED'])
  async tokenGated(@Param('provider') name: string, @Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    return this.receive(this.definition(name, 'token'), request);
  }

  /**
   * The definition a URL names.
   *
   * @throws ProblemError 404 `REQUEST.NOT_FOUND` (as for any unknown route) for an unknown
   *   provider or a URL of the wrong shape for it (a token on a signed provider's URL, or none
   *   on a token-gated one).
   */
  private definition(name: string, route: 'plain' | 'token'): ProviderDefinition {
    const definition = providerDefinition(name);
    if (!definition || definition.webhook.route !== route) throw new ProblemError(404, 'REQUEST.NOT_FOUND', 'Not found');
    return definition;
  }

  private async receive(definition: ProviderDefinition, request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    const provider = definition.name;
    const secrets = this.candidates(provider);
    const raw = this.rawBody(request);
    const check = this.authenticators[provider].authenticate(
      { rawBody: raw, headers: request.headers, path: request.url, sourceAddress: request.socket.remoteAddress, nowMs: Date.now() },
      secrets,
    );
    if (!check.ok && 'forbidden' in check && check.forbidden) {
      this.metrics.webhooks.inc({ provider, outcome: 'rejected', reason: check.reason });
      throw new ProblemError(403, 'WEBHOOK.SOURCE_NOT_ALLOWED', 'Callback source not allowed');
    }
    return this.intake(provider, raw, check);
  }

  /** The provider's candidate secrets (current, then previous) as strings. @throws ProblemError 404 */
  private candidates(provider: WebhookProvider): string[] {
    const secrets = this.secrets.candidates(provider);
    if (secrets.length === 0) throw notConfigured(provider);
    return secrets.map((s) => s.reveal());
  }

  private rawBody(request: RawBodyRequest<FastifyRequest>): Buffer {
    const raw = request.rawBody;
    if (!raw || raw.length === 0) throw new ProblemError(400, 'WEBHOOK.EMPTY_BODY', 'Empty webhook body');
    return raw;
  }

  private async intake(provider: WebhookProvider, raw: Buffer, check: { ok: true } | { ok: false; reason: string }): Promise<{ received: true }> {
    const now = new Date();
    if (!check.ok) {
      const reference = untrustedReference(provider, raw);
      const verification = reference
        ? await this.durably(provider, () => this.webhooks.requestVerificationAfterRejection({ provider, dedupeKey: bodyDigest(raw), reference, now }))
        : null;
      this.metrics.webhooks.inc({ provider, outcome: 'rejected', reason: check.reason });
      this.logger.warn(
        { provider, reference, reason: check.reason, verification: verification?.kind ?? 'unknown_reference', coalesced: coalescedReason(verification) },
        'webhook rejected',
      );
      throw new UnauthenticatedProblem(
        'WEBHOOK.SIGNATURE_INVALID',
        'Invalid webhook signature',
        WEBHOOK_CHALLENGE,
        `The payload was not trusted (${check.reason})`,
      );
    }
    const ambiguities = bodyAmbiguities(raw);
    if (ambiguities.length > 0) return this.refuseAmbiguous(provider, raw, ambiguities, now);
    const trigger = webhookTrigger(provider, raw);
    if (!trigger) {
      this.metrics.webhooks.inc({ provider, outcome: 'malformed', reason: 'SHAPE' });
      throw new ProblemError(400, 'WEBHOOK.MALFORMED', 'Malformed webhook body', 'The event lacks its type, id or transaction reference');
    }
    const fresh = await this.durably(provider, () =>
      this.webhooks.recordVerified({
        provider,
        dedupeKey: trigger.dedupeKey,
        reference: trigger.reference,
        providerEventType: trigger.eventType,
        bodySha256: bodyDigest(raw),
        now,
      }),
    );
    this.metrics.webhooks.inc({ provider, outcome: fresh ? 'accepted' : 'duplicate', reason: '' });
    this.logger.debug({ provider, reference: trigger.reference, event: trigger.eventType, duplicate: !fresh }, 'webhook received');
    return { received: true };
  }

  /**
   * A verified body with a repeated key: which value the provider meant is unknowable, so the
   * event is refused (400, counted as `malformed` with reason `DUPLICATE_KEY`) rather than read
   * one way here and another elsewhere; likewise a body holding text that could not be stored as
   * sent (a NUL or a lone surrogate in a string or key, bytes that are not UTF-8: reason
   * `INVALID_CHARACTER`). Nothing was acknowledged, and the payment is not left to
   * chance: every well-formed reference the body names that is a known checkout gets a REST
   * verification, as after a rejected signature (docs/spec.md, section 3, "Signature rejection").
   *
   * @throws ProblemError 400 `REQUEST.DUPLICATE_KEY` naming the repeated keys (JSON Pointers), or
   *   `REQUEST.INVALID_CHARACTER` naming the unstorable strings, whichever comes first in the body;
   *   or 503 `WEBHOOK.NOT_DURABLE` when the verification requests cannot be stored (the provider retries).
   */
  private async refuseAmbiguous(provider: WebhookProvider, raw: Buffer, ambiguities: JsonAmbiguity[], now: Date): Promise<never> {
    const references = stringsAtPath(raw.toString('utf8'), PROVIDER_REGISTRY[provider].webhook.referencePath).filter(isWellFormedReference);
    const digest = bodyDigest(raw);
    const verifications: Record<string, string> = {};
    for (const reference of references) {
      const outcome = await this.durably(provider, () =>
        this.webhooks.requestVerificationAfterRejection({ provider, dedupeKey: `${digest}:${reference}`, reference, now }),
      );
      verifications[reference] = outcome?.kind ?? 'unknown_reference';
    }
    const reason = ambiguities[0]!.code.replace('REQUEST.', '');
    this.metrics.webhooks.inc({ provider, outcome: 'malformed', reason });
    this.logger.warn({ provider, reason, keys: ambiguities.map((a) => a.path), verifications }, 'signed webhook with an ambiguous or unstorable body refused');
    throw ambiguityProblem(ambiguities);
  }

  private async durably<T>(provider: WebhookProvider, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.metrics.webhooks.inc({ provider, outcome: 'not_durable', reason: '' });
      this.logger.error({ err: error, provider }, 'webhook could not be made durable');
      throw new ProblemError(503, 'WEBHOOK.NOT_DURABLE', 'Webhook not stored', 'Retry later');
    }
  }
}

/**
 * The repeated keys of a body, and the strings or keys that could not be stored as sent (a NUL, a
 * lone surrogate; bytes that are not UTF-8), as JSON Pointers; none for a body that is not JSON
 * (the trigger refuses it). Numbers are the provider's own (major units): not checked.
 */
function bodyAmbiguities(raw: Buffer): JsonAmbiguity[] {
  if (!isUtf8(raw)) return [{ code: INVALID_CHARACTER, path: '', message: 'the body is not valid UTF-8 (RFC 8259, section 8.1)' }];
  try {
    return findJsonAmbiguities(raw.toString('utf8'), { duplicateKeys: true, integerLiterals: false, characters: true });
  } catch {
    return [];
  }
}

/** Why a rejected webhook's verification request was coalesced, for the log; `undefined` when it was not. */
function coalescedReason(outcome: VerificationRequestOutcome | null): string | undefined {
  return outcome?.kind === 'coalesced' ? outcome.reason : undefined;
}

function notConfigured(provider: WebhookProvider): ProblemError {
  return new ProblemError(404, 'WEBHOOK.PROVIDER_NOT_CONFIGURED', 'No webhook endpoint for this provider', `Webhooks from ${provider} are not configured`);
}
