import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { IngestionConfig } from '@settle/config';
import { ProblemError, type Logger } from '@settle/platform';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CONFIG, LOGGER, METRICS, WEBHOOK_SECRETS } from '../tokens.js';
import {
  PAYSTACK_SIGNATURE_HEADER,
  SourceAllowlist,
  STRIPE_SIGNATURE_HEADER,
  verifyFlutterwaveWebhook,
  verifyMpesaCallback,
  verifyPaystackWebhook,
  verifyStripeSignature,
} from './signatures/index.js';
import { bodyDigest, untrustedReference, webhookTrigger, type WebhookProvider } from './webhook-events.js';
import type { IngestionMetrics } from './webhook.metrics.js';
import type { WebhookSecrets } from './webhook-secrets.js';
import { WebhookRepository } from './webhook.repository.js';

/**
 * Provider webhooks. Each signature is verified on the exact raw bytes before the payload is
 * read, against the current and previous secrets (rotation grace period). A verified webhook
 * is only a trigger: the verifier still asks the provider directly (a bare HTTP 200 grants
 * nothing). The answer is 200 `{ received: true }` once the event is durable (committed to the
 * inbox and outbox); a duplicate answers the same and stores nothing new; a failure to make it
 * durable answers 503 so the provider retries. A rejected webhook answers 401 (403 for an
 * M-Pesa callback from a source outside the allowlist), is counted, is never published as a
 * provider event, and, when it names a known checkout, triggers a REST verification instead.
 */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    @Inject(CONFIG) private readonly config: IngestionConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: IngestionMetrics,
    @Inject(WEBHOOK_SECRETS) private readonly secrets: WebhookSecrets,
    private readonly webhooks: WebhookRepository,
  ) {}

  /** The provider's candidate secrets (current, then previous) as strings. @throws ProblemError 404 */
  private candidates(provider: WebhookProvider): string[] {
    const secrets = this.secrets.candidates(provider);
    if (secrets.length === 0) throw notConfigured(provider);
    return secrets.map((s) => s.reveal());
  }

  /** Paystack-style provider A: `x-paystack-signature` = hex HMAC-SHA512 of the raw body. */
  @Post('paystack')
  @HttpCode(200)
  async paystack(@Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    const keys = this.candidates('paystack');
    const raw = this.rawBody(request);
    return this.intake('paystack', raw, verifyPaystackWebhook(raw, request.headers[PAYSTACK_SIGNATURE_HEADER], keys));
  }

  /** Stripe: `Stripe-Signature: t=...,v1=...`, HMAC-SHA256 of `t.body`, within the tolerance window. */
  @Post('stripe')
  @HttpCode(200)
  async stripe(@Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    const secrets = this.candidates('stripe');
    const raw = this.rawBody(request);
    const check = verifyStripeSignature(raw, request.headers[STRIPE_SIGNATURE_HEADER], secrets, {
      nowMs: Date.now(),
      toleranceMs: this.config.webhooks.stripe.toleranceMs,
    });
    return this.intake('stripe', raw, check);
  }

  /** Flutterwave: `verif-hash` (the secret hash) or the HMAC variant, per account configuration. */
  @Post('flutterwave')
  @HttpCode(200)
  async flutterwave(@Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    const secretHashes = this.candidates('flutterwave');
    const raw = this.rawBody(request);
    const check = verifyFlutterwaveWebhook(raw, request.headers, secretHashes, { mode: this.config.webhooks.flutterwave.mode });
    return this.intake('flutterwave', raw, check);
  }

  /**
   * M-Pesa STK callback: no signature exists, so a secret token in the callback path (and an
   * optional source allowlist) gates it; its content is only ever a trigger for a status query.
   */
  @Post('mpesa/:token')
  @HttpCode(200)
  async mpesa(@Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    const tokens = this.candidates('mpesa');
    const raw = this.rawBody(request);
    const check = verifyMpesaCallback({ path: request.url, sourceAddress: request.socket.remoteAddress }, { tokens, allowlist: this.allowlist() });
    if (!check.ok && check.reason === 'SOURCE_NOT_ALLOWED') {
      this.metrics.webhooks.inc({ provider: 'mpesa', outcome: 'rejected', reason: check.reason });
      throw new ProblemError(403, 'WEBHOOK.SOURCE_NOT_ALLOWED', 'Callback source not allowed');
    }
    return this.intake('mpesa', raw, check.ok ? check : { ok: false, reason: check.reason });
  }

  private cachedAllowlist: SourceAllowlist | null | undefined;

  private allowlist(): SourceAllowlist | null {
    if (this.cachedAllowlist === undefined) {
      const entries = this.config.webhooks.mpesa.allowlist;
      this.cachedAllowlist = entries.length > 0 ? SourceAllowlist.from(entries) : null;
    }
    return this.cachedAllowlist;
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
      let requested = false;
      if (reference) {
        requested = await this.durably(provider, () =>
          this.webhooks.requestVerificationAfterRejection({ provider, dedupeKey: bodyDigest(raw), reference, now }),
        );
      }
      this.metrics.webhooks.inc({ provider, outcome: 'rejected', reason: check.reason });
      this.logger.warn({ provider, reference, reason: check.reason, verificationRequested: requested }, 'webhook rejected');
      throw new ProblemError(401, 'WEBHOOK.SIGNATURE_INVALID', 'Invalid webhook signature', `The payload was not trusted (${check.reason})`);
    }
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

function notConfigured(provider: WebhookProvider): ProblemError {
  return new ProblemError(404, 'WEBHOOK.PROVIDER_NOT_CONFIGURED', 'No webhook endpoint for this provider', `Webhooks from ${provider} are not configured`);
}
