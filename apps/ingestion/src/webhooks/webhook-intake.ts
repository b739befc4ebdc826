import { isUtf8 } from 'node:buffer';
import { Inject, Injectable } from '@nestjs/common';
import { findJsonAmbiguities, INVALID_CHARACTER, stringsAtPath, type JsonAmbiguity } from '@settle/http';
import { PROVIDER_REGISTRY, type WebhookAuthenticator, type WebhookRequest } from '@settle/providers';
import { WEBHOOK_AUTHENTICATORS, WEBHOOK_SECRETS } from '../tokens.js';
import type { VerificationRequestOutcome } from '../verification/verification-requests.js';
import { bodyDigest, isWellFormedReference, untrustedReference, webhookTrigger, type WebhookProvider } from './webhook-events.js';
import type { WebhookSecrets } from './webhook-secrets.js';
import { WebhookRepository } from './webhook.repository.js';

/**
 * What one provider webhook came to (docs/webhooks.md, "Answers"), decided by
 * {@link WebhookIntake.receive}; the controller only maps it to HTTP, metrics and a log line:
 * - `accepted`, `duplicate`: signed, of the provider's shape, durable (stored now, or before);
 * - `rejected`: not signed as the provider signs (a verification requested instead when the body
 *   names a known checkout: `verification`);
 * - `forbidden`: a callback from a source outside the allowlist (M-Pesa);
 * - `ambiguous`: signed, but a key is repeated or a string cannot be stored as sent; every
 *   well-formed reference it names got a verification request (`verifications`, by reference);
 * - `malformed`: signed, but not an event of the provider's shape;
 * - `not_configured`: no secret is stored for the provider;
 * - `not_durable`: what had to be stored could not be (the database is down: the provider retries).
 */
export type IntakeOutcome =
  | { kind: 'accepted' | 'duplicate'; reference: string; eventType: string }
  | { kind: 'rejected'; reason: string; reference: string | null; verification: VerificationRequestOutcome | null }
  | { kind: 'forbidden'; reason: string }
  | { kind: 'ambiguous'; ambiguities: JsonAmbiguity[]; verifications: Record<string, string> }
  | { kind: 'malformed' }
  | { kind: 'not_configured' }
  | { kind: 'not_durable'; error: unknown };

/** A webhook as the edge read it. */
export type IncomingWebhook = Omit<WebhookRequest, 'nowMs'>;

/** Thrown inside the intake when a write fails: the outcome is `not_durable`. */
class NotDurable extends Error {
  constructor(readonly error: unknown) {
    super('not durable');
  }
}

/**
 * The webhook intake (the application service behind `POST /v1/webhooks/...`): authenticates the
 * raw bytes against the provider's current and previous secrets before reading them, then stores
 * a signed event once in the inbox and the outbox (a duplicate stores nothing), or, for a body that
 * cannot be trusted or read one way only, requests a REST verification of the checkouts it names
 * (docs/spec.md, section 3, "Signature rejection"; docs/webhooks.md). A webhook is only ever a
 * trigger: the verifier asks the provider.
 */
@Injectable()
export class WebhookIntake {
  constructor(
    @Inject(WEBHOOK_AUTHENTICATORS) private readonly authenticators: Readonly<Record<WebhookProvider, WebhookAuthenticator>>,
    @Inject(WEBHOOK_SECRETS) private readonly secrets: Pick<WebhookSecrets, 'candidates'>,
    private readonly webhooks: WebhookRepository,
  ) {}

  /** Decides what a webhook comes to and makes it durable; never throws. */
  async receive(provider: WebhookProvider, webhook: IncomingWebhook): Promise<IntakeOutcome> {
    const secrets = this.secrets.candidates(provider).map((s) => s.reveal());
    if (secrets.length === 0) return { kind: 'not_configured' };
    const now = new Date();
    const check = this.authenticators[provider].authenticate({ ...webhook, nowMs: now.getTime() }, secrets);
    try {
      if (!check.ok) {
        if ('forbidden' in check && check.forbidden) return { kind: 'forbidden', reason: check.reason };
        const reference = untrustedReference(provider, webhook.rawBody);
        const verification = reference
          ? await durably(() => this.webhooks.requestVerificationAfterRejection({ provider, dedupeKey: bodyDigest(webhook.rawBody), reference, now }))
          : null;
        return { kind: 'rejected', reason: check.reason, reference, verification };
      }
      const ambiguities = bodyAmbiguities(webhook.rawBody);
      if (ambiguities.length > 0) return { kind: 'ambiguous', ambiguities, verifications: await this.verifyNamed(provider, webhook.rawBody, now) };
      const trigger = webhookTrigger(provider, webhook.rawBody);
      if (!trigger) return { kind: 'malformed' };
      const fresh = await durably(() =>
        this.webhooks.recordVerified({
          provider,
          dedupeKey: trigger.dedupeKey,
          reference: trigger.reference,
          providerEventType: trigger.eventType,
          bodySha256: bodyDigest(webhook.rawBody),
          now,
        }),
      );
      return { kind: fresh ? 'accepted' : 'duplicate', reference: trigger.reference, eventType: trigger.eventType };
    } catch (error) {
      if (error instanceof NotDurable) return { kind: 'not_durable', error: error.error };
      throw error;
    }
  }

  /**
   * A signed body that is read one way here and could be read another elsewhere (a repeated key),
   * or holds text that cannot be stored as sent, is refused; nothing acknowledged is lost: every
   * well-formed reference it names under the provider's reference path (every value of a repeated
   * key) that is a known checkout gets a verification request.
   *
   * @returns the outcome per reference (`requested`, `coalesced`, `duplicate`, `unknown_reference`).
   */
  private async verifyNamed(provider: WebhookProvider, raw: Buffer, now: Date): Promise<Record<string, string>> {
    const references = stringsAtPath(raw.toString('utf8'), PROVIDER_REGISTRY[provider].webhook.referencePath).filter(isWellFormedReference);
    const digest = bodyDigest(raw);
    const verifications: Record<string, string> = {};
    for (const reference of references) {
      const outcome = await durably(() => this.webhooks.requestVerificationAfterRejection({ provider, dedupeKey: `${digest}:${reference}`, reference, now }));
      verifications[reference] = outcome?.kind ?? 'unknown_reference';
    }
    return verifications;
  }
}

/** Runs a write; a failure is {@link NotDurable}. */
async function durably<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new NotDurable(error);
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
