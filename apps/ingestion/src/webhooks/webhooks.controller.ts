import { createHash } from 'node:crypto';
import { Controller, Headers, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { IngestionConfig } from '@settle/config';
import { ProblemError, type Logger } from '@settle/platform';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { REFERENCE_PATTERN } from '../checkouts/checkout.request.js';
import { CONFIG, LOGGER } from '../tokens.js';
import { verifyPaystackSignature } from './paystack-signature.js';
import { WebhookRepository } from './webhook.repository.js';

/** Reads `data.reference` from an untrusted JSON body; never throws. */
export function untrustedReference(raw: Buffer): string | null {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    const reference = (parsed as { data?: { reference?: unknown } })?.data?.reference;
    return typeof reference === 'string' && REFERENCE_PATTERN.test(reference) ? reference : null;
  } catch {
    return null;
  }
}

/**
 * Provider webhooks. The signature is verified on the exact raw bytes before the payload is
 * read. A verified webhook is only a trigger: the verifier still asks the provider directly
 * (a bare HTTP 200 grants nothing). The answer is 200 `{ received: true }` once the event is
 * durable (committed to the inbox and outbox); a failure to make it durable answers 503 so
 * the provider retries.
 */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    @Inject(CONFIG) private readonly config: IngestionConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly webhooks: WebhookRepository,
  ) {}

  /**
   * Paystack-style provider A: `x-paystack-signature` = hex HMAC-SHA512 of the raw body.
   *
   * @throws ProblemError 401 `WEBHOOK.SIGNATURE_INVALID` (after requesting a REST
   *   verification of the named transaction, when it is a known checkout);
   *   400 `WEBHOOK.MALFORMED` for a signed body that is not a Paystack event;
   *   503 `WEBHOOK.NOT_DURABLE` when the event could not be stored.
   */
  @Post('paystack')
  @HttpCode(200)
  async paystack(
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Headers('x-paystack-signature') signature: string | undefined,
  ): Promise<{ received: true }> {
    const raw = request.rawBody;
    if (!raw || raw.length === 0) throw new ProblemError(400, 'WEBHOOK.EMPTY_BODY', 'Empty webhook body');
    const now = new Date();
    const bodySha256 = createHash('sha256').update(raw).digest('hex');
    if (!verifyPaystackSignature(raw, signature, this.config.webhooks.paystack.secretKey.reveal())) {
      const reference = untrustedReference(raw);
      let requested = false;
      if (reference) {
        requested = await this.durably(() =>
          this.webhooks.requestVerificationAfterRejection({ provider: 'paystack', dedupeKey: bodySha256, reference, now }),
        );
      }
      this.logger.warn({ provider: 'paystack', reference, verificationRequested: requested }, 'webhook signature rejected');
      throw new ProblemError(401, 'WEBHOOK.SIGNATURE_INVALID', 'Invalid webhook signature', 'The payload was not trusted');
    }
    let event: { event?: unknown; data?: { reference?: unknown } };
    try {
      event = JSON.parse(raw.toString('utf8')) as typeof event;
    } catch {
      throw new ProblemError(400, 'WEBHOOK.MALFORMED', 'Malformed webhook body');
    }
    const reference = event?.data?.reference;
    if (typeof reference !== 'string' || !REFERENCE_PATTERN.test(reference) || typeof event.event !== 'string') {
      throw new ProblemError(400, 'WEBHOOK.MALFORMED', 'Webhook lacks event or data.reference');
    }
    const fresh = await this.durably(() =>
      this.webhooks.recordVerified({
        provider: 'paystack',
        // Paystack events carry no event id: the digest of the verified body identifies one.
        dedupeKey: bodySha256,
        reference,
        providerEventType: event.event as string,
        bodySha256,
        now,
      }),
    );
    this.logger.info({ provider: 'paystack', reference, duplicate: !fresh }, 'webhook received');
    return { received: true };
  }

  private async durably<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.logger.error({ err: error }, 'webhook could not be made durable');
      throw new ProblemError(503, 'WEBHOOK.NOT_DURABLE', 'Webhook not stored', 'Retry later');
    }
  }
}
