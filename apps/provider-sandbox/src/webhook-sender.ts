import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import type { Logger } from '@settle/platform';
import { request } from 'undici';
import type { ProviderName, SandboxTransaction } from './sandbox.core.js';

/** One webhook (or M-Pesa callback) ready to send. */
export interface OutgoingWebhook {
  url: string;
  /** The URL as it may be logged (a secret token in the path is redacted). */
  target: string;
  headers: Record<string, string>;
  /** The exact bytes sent (and signed). */
  body: string;
}

/** Sends a transaction's webhook the way its knobs say. */
export interface Notifier {
  /**
   * @param build - called when the webhook is sent (after any `delay`), so timestamps and
   *   signatures are fresh; every copy of a `duplicate` carries the same body.
   */
  dispatch(tx: SandboxTransaction, provider: ProviderName, build: () => OutgoingWebhook): void;
}

/** Options of the delivery retry policy. */
export interface WebhookSenderOptions {
  maxAttempts?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Delivers webhooks the way each transaction's knob says: deliver, drop, delay, duplicate
 * (spoofing is done by the provider's builder, which signs with a wrong secret). Like a
 * provider, it retries 5xx answers and connection failures with exponential backoff (a few
 * times), and never retries a 4xx.
 */
export class WebhookSender implements Notifier {
  private readonly policy;
  private readonly pending = new Set<NodeJS.Timeout>();

  constructor(
    private readonly logger: Logger,
    options: WebhookSenderOptions = {},
  ) {
    this.policy = retry(handleAll, {
      maxAttempts: options.maxAttempts ?? 4,
      backoff: new ExponentialBackoff({ initialDelay: options.initialDelayMs ?? 500, maxDelay: options.maxDelayMs ?? 5_000 }),
    });
  }

  dispatch(tx: SandboxTransaction, provider: ProviderName, build: () => OutgoingWebhook): void {
    const mode = tx.behaviour.webhook;
    if (mode === 'drop') {
      this.logger.info({ provider, reference: tx.reference }, 'webhook dropped (knob)');
      return;
    }
    const delay = mode === 'delay' ? tx.behaviour.webhook_delay_ms : 0;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      void this.sendCopies(tx, provider, build(), mode === 'duplicate' ? 2 : 1);
    }, delay);
    this.pending.add(timer);
  }

  private async sendCopies(tx: SandboxTransaction, provider: ProviderName, webhook: OutgoingWebhook, copies: number): Promise<void> {
    for (let i = 0; i < copies; i++) {
      try {
        const status = await this.policy.execute(async () => {
          const response = await request(webhook.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...webhook.headers },
            body: webhook.body,
            headersTimeout: 10_000,
            bodyTimeout: 10_000,
          });
          await response.body.dump();
          if (response.statusCode >= 500) throw new Error(`webhook answered ${response.statusCode}`);
          return response.statusCode;
        });
        tx.webhooksSent += 1;
        this.logger.info({ provider, reference: tx.reference, target: webhook.target, status, mode: tx.behaviour.webhook }, 'webhook delivered');
      } catch (error) {
        this.logger.warn({ provider, reference: tx.reference, target: webhook.target, err: error }, 'webhook delivery gave up');
      }
    }
  }

  /** Cancels webhooks still waiting for their delay. */
  stop(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
