import { Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ambiguityProblem, ApiAnswer, ApiProblems, UnauthenticatedProblem } from '@settle/http';
import { ProblemError, type Logger } from '@settle/platform';
import { providerDefinition, type ProviderDefinition } from '@settle/providers';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { webhookAnswer } from '../http/openapi/answers.js';
import { ApiWebhookSignatures, PROVIDERS_BY_ROUTE } from '../http/openapi/security.js';
import { LOGGER, METRICS } from '../tokens.js';
import type { VerificationRequestOutcome } from '../verification/verification-requests.js';
import type { WebhookProvider } from './webhook-events.js';
import { WebhookIntake, type IntakeOutcome } from './webhook-intake.js';
import type { IngestionMetrics } from './webhook.metrics.js';

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
 * (docs/webhooks.md, "Ambiguous bodies"). The decisions are the intake's (`WebhookIntake`, an
 * application service returning a tagged outcome); this controller maps each to HTTP, the
 * `settle_webhooks_total` counter and a log line.
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
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: IngestionMetrics,
    private readonly intake: WebhookIntake,
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
    const outcome = await this.intake.receive(provider, {
      rawBody: this.rawBody(request),
      headers: request.headers,
      path: request.url,
      sourceAddress: request.socket.remoteAddress,
    });
    return this.answer(provider, outcome);
  }

  private rawBody(request: RawBodyRequest<FastifyRequest>): Buffer {
    const raw = request.rawBody;
    if (!raw || raw.length === 0) throw new ProblemError(400, 'WEBHOOK.EMPTY_BODY', 'Empty webhook body');
    return raw;
  }

  /**
   * Maps the intake's outcome to the answer (docs/webhooks.md, "Answers"), the
   * `settle_webhooks_total` counter and a log line.
   *
   * @throws ProblemError 401 `WEBHOOK.SIGNATURE_INVALID` (with `WWW-Authenticate`), 403
   *   `WEBHOOK.SOURCE_NOT_ALLOWED`, 400 `REQUEST.DUPLICATE_KEY` or `REQUEST.INVALID_CHARACTER`
   *   (ambiguous), 400 `WEBHOOK.MALFORMED`, 404 `WEBHOOK.PROVIDER_NOT_CONFIGURED`, 503
   *   `WEBHOOK.NOT_DURABLE` (the provider retries).
   */
  private answer(provider: WebhookProvider, outcome: IntakeOutcome): { received: true } {
    const count = (result: string, reason = '') => this.metrics.webhooks.inc({ provider, outcome: result, reason });
    switch (outcome.kind) {
      case 'accepted':
      case 'duplicate':
        count(outcome.kind);
        this.logger.debug({ provider, reference: outcome.reference, event: outcome.eventType, duplicate: outcome.kind === 'duplicate' }, 'webhook received');
        return { received: true };
      case 'rejected': {
        count('rejected', outcome.reason);
        const { reference, reason, verification } = outcome;
        this.logger.warn(
          { provider, reference, reason, verification: verification?.kind ?? 'unknown_reference', coalesced: coalescedReason(verification) },
          'webhook rejected',
        );
        throw new UnauthenticatedProblem(
          'WEBHOOK.SIGNATURE_INVALID',
          'Invalid webhook signature',
          WEBHOOK_CHALLENGE,
          `The payload was not trusted (${reason})`,
        );
      }
      case 'forbidden':
        count('rejected', outcome.reason);
        throw new ProblemError(403, 'WEBHOOK.SOURCE_NOT_ALLOWED', 'Callback source not allowed');
      case 'ambiguous': {
        const reason = outcome.ambiguities[0]!.code.replace('REQUEST.', '');
        count('malformed', reason);
        this.logger.warn(
          { provider, reason, keys: outcome.ambiguities.map((a) => a.path), verifications: outcome.verifications },
          'signed webhook with an ambiguous or unstorable body refused',
        );
        throw ambiguityProblem(outcome.ambiguities);
      }
      case 'malformed':
        count('malformed', 'SHAPE');
        throw new ProblemError(400, 'WEBHOOK.MALFORMED', 'Malformed webhook body', 'The event lacks its type, id or transaction reference');
      case 'not_configured':
        throw notConfigured(provider);
      case 'not_durable':
        count('not_durable');
        this.logger.error({ err: outcome.error, provider }, 'webhook could not be made durable');
        throw new ProblemError(503, 'WEBHOOK.NOT_DURABLE', 'Webhook not stored', 'Retry later');
      default: {
        const never: never = outcome;
        throw new Error(`unknown intake outcome ${JSON.stringify(never)}`);
      }
    }
  }
}

/** Why a rejected webhook's verification request was coalesced, for the log; `undefined` when it was not. */
function coalescedReason(outcome: VerificationRequestOutcome | null): string | undefined {
  return outcome?.kind === 'coalesced' ? outcome.reason : undefined;
}

function notConfigured(provider: WebhookProvider): ProblemError {
  return new ProblemError(404, 'WEBHOOK.PROVIDER_NOT_CONFIGURED', 'No webhook endpoint for this provider', `Webhooks from ${provider} are not configured`);
}
