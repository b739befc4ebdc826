import type { Secret } from '@settle/config';
import type { Logger } from '@settle/platform';
import { PROVIDER_DEFINITIONS } from '@settle/providers';
import { isVaultError, type CredentialsVault } from '@settle/vault';
import type { WebhookProvider } from './webhook-events.js';

/** Schema of ingestion's own vault: webhook signing secrets only, under its own master keys. */
export const WEBHOOK_VAULT_SCHEMA = 'webhook_vault';

/**
 * The webhook secrets ingestion checks signatures with, read from its vault at boot and
 * re-read on an interval, so a rotation (new current, old moved to previous, later removed)
 * takes effect without a restart. A provider with no current secret has no webhook endpoint.
 */
export class WebhookSecrets {
  private secrets = new Map<WebhookProvider, Secret[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly vault: CredentialsVault,
    private readonly account: string,
    private readonly logger: Logger,
  ) {}

  /** Candidate secrets for a provider, current first; empty when not configured. */
  candidates(provider: WebhookProvider): readonly Secret[] {
    return this.secrets.get(provider) ?? [];
  }

  /**
   * Reads every provider's secrets.
   *
   * @throws VaultError other than `VAULT.NOT_FOUND` (a broken ring or a tampered row).
   */
  async load(): Promise<void> {
    const next = new Map<WebhookProvider, Secret[]>();
    // Each provider's vault names (current and previous) come from its definition.
    for (const { name: provider, webhook } of PROVIDER_DEFINITIONS) {
      const names = webhook.secretNames;
      const current = await this.read(provider, names.current);
      if (!current) continue;
      const previous = await this.read(provider, names.previous);
      next.set(provider, previous ? [current, previous] : [current]);
    }
    this.secrets = next;
  }

  /** Re-reads every `intervalMs` milliseconds; a failed read keeps the secrets it had. */
  startRefresh(intervalMs: number): void {
    const tick = () => {
      this.load()
        .catch((error: unknown) => this.logger.error({ err: error }, 'webhook secrets could not be re-read; keeping the previous ones'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async read(provider: WebhookProvider, name: string): Promise<Secret | null> {
    try {
      return await this.vault.get({ provider, account: this.account, name });
    } catch (error) {
      if (isVaultError(error, 'VAULT.NOT_FOUND')) return null;
      throw error;
    }
  }
}
