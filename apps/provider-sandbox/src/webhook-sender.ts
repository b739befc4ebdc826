import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import type { Logger } from '@settle/platform';
import { request } from 'undici';
import type { PaystackSandbox, SandboxTransaction } from './paystack.sandbox.js';

/**
 * Delivers `charge.success` webhooks the way each transaction's knob says: deliver, drop,
 * delay, duplicate or spoof. Like a provider, it retries 5xx answers and connection
 * failures with exponential backoff (a few times), and never retries a 4xx.
 */
export class WebhookSender {
  private readonly policy = retry(handleAll, { maxAttempts: 4, backoff: new ExponentialBackoff({ initialDelay: 500, maxDelay: 5_000 }) });
  private readonly pending = new Set<NodeJS.Timeout>();

  constructor(
    private readonly sandbox: PaystackSandbox,
    private readonly url: string,
    private readonly secretKey: string,
    private readonly logger: Logger,
  ) {}

  dispatch(tx: SandboxTransaction): void {
    const mode = tx.behaviour.webhook;
    if (mode === 'drop') {
      this.logger.info({ reference: tx.reference }, 'webhook dropped (knob)');
      return;
    }
    const delay = mode === 'delay' ? tx.behaviour.webhook_delay_ms : 0;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      void this.sendCopies(tx, mode === 'duplicate' ? 2 : 1);
    }, delay);
    this.pending.add(timer);
  }

  private async sendCopies(tx: SandboxTransaction, copies: number): Promise<void> {
    const { body, signature } = this.sandbox.webhook(tx, this.secretKey);
    for (let i = 0; i < copies; i++) {
      try {
        const status = await this.policy.execute(async () => {
          const response = await request(this.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
            body,
            headersTimeout: 10_000,
            bodyTimeout: 10_000,
          });
          await response.body.dump();
          if (response.statusCode >= 500) throw new Error(`webhook answered ${response.statusCode}`);
          return response.statusCode;
        });
        tx.webhooksSent += 1;
        this.logger.info({ reference: tx.reference, status, mode: tx.behaviour.webhook }, 'webhook delivered');
      } catch (error) {
        this.logger.warn({ reference: tx.reference, err: error }, 'webhook delivery gave up');
      }
    }
  }

  stop(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
