import type { DisabledReason, EntitlementEventKind } from '@settle/domain';
import { inTransaction, type Pool, type PoolClient } from '@settle/platform';
import { DISABLE_RACE_MARGIN_MS, FAN_OUT_LOCK_EXCLUSIVE } from '../deliveries/fan-out-lock.js';

/** A customer endpoint as stored (never its secret: that is in the vault). */
export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  eventKinds: EntitlementEventKind[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  disabledAt: Date | null;
  /** First failure of the current unbroken run of failed attempts, `null` when the last attempt succeeded. */
  failingSince: Date | null;
  secretVersion: number;
  previousSecretVersion: number | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  url: string;
  description: string | null;
  event_kinds: EntitlementEventKind[];
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  secret_version: number;
  previous_secret_version: number | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toEndpoint = (r: Row): Endpoint => ({
  id: r.id,
  url: r.url,
  description: r.description,
  eventKinds: r.event_kinds,
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  disabledAt: r.disabled_at,
  failingSince: r.failing_since,
  secretVersion: r.secret_version,
  previousSecretVersion: r.previous_secret_version,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** `dispatcher.endpoints`: the customer's endpoints. Deleted endpoints are kept (soft delete) so their history stays. */
export class EndpointRepository {
  constructor(private readonly pool: Pool) {}

  async insert(e: { id: string; url: string; description: string | null; eventKinds: readonly EntitlementEventKind[] }): Promise<Endpoint> {
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO dispatcher.endpoints (id, url, description, event_kinds, secret_version) VALUES ($1, $2, $3, $4, 1) RETURNING *`,
      [e.id, e.url, e.description, e.eventKinds],
    );
    return toEndpoint(rows[0]!);
  }

  /** An endpoint that is not deleted, or `null`. */
  async find(id: string, client: Pool | PoolClient = this.pool, forUpdate = false): Promise<Endpoint | null> {
    const { rows } = await client.query<Row>(`SELECT * FROM dispatcher.endpoints WHERE id = $1 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  /** Every endpoint that is not deleted, oldest first. */
  async list(): Promise<Endpoint[]> {
    const { rows } = await this.pool.query<Row>('SELECT * FROM dispatcher.endpoints WHERE deleted_at IS NULL ORDER BY created_at, id');
    return rows.map(toEndpoint);
  }

  /** Changes the given fields; @returns the endpoint, or `null` when there is none. */
  async update(id: string, fields: { url?: string; description?: string | null; eventKinds?: readonly EntitlementEventKind[] }): Promise<Endpoint | null> {
    const { rows } = await this.pool.query<Row>(
      `UPDATE dispatcher.endpoints SET
         url = COALESCE($2, url),
         description = CASE WHEN $3::boolean THEN $4 ELSE description END,
         event_kinds = COALESCE($5, event_kinds),
         updated_at = now()
       WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
      [id, fields.url ?? null, fields.description !== undefined, fields.description ?? null, fields.eventKinds ?? null],
    );
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  /**
   * Enables an endpoint (clearing why it was disabled and its failing run), or disables it by
   * an admin. One transaction. Enabling takes the fan-out lock exclusively (fan-out-lock.ts),
   * then records a pending delivery of every event received while the endpoint was disabled
   * that it is subscribed to and has none of (from `disabled_at`, less
   * {@link DISABLE_RACE_MARGIN_MS}, or its registration if later: fan-outs record deliveries for
   * enabled endpoints only), and makes its pending deliveries due at once, each starting a new
   * round of the retry schedule (docs/delivery.md, "Disabled endpoints").
   *
   * @returns the endpoint and how many deliveries the re-enable recorded (0 when disabling),
   *   or `null` when there is no such endpoint.
   */
  async setEnabled(id: string, enabled: boolean): Promise<{ endpoint: Endpoint; backfilled: number } | null> {
    if (!enabled) {
      const { rows } = await this.pool.query<Row>(
        `UPDATE dispatcher.endpoints SET enabled = false, disabled_reason = 'admin', disabled_at = now(), updated_at = now()
          WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
        [id],
      );
      return rows[0] ? { endpoint: toEndpoint(rows[0]), backfilled: 0 } : null;
    }
    return inTransaction(
      this.pool,
      async (client) => {
        const { rows } = await client.query<Row & { backfill_from: Date | null }>(
          `UPDATE dispatcher.endpoints e SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL, updated_at = now()
             FROM (SELECT id, CASE WHEN enabled THEN NULL
                                   ELSE GREATEST(disabled_at - make_interval(secs => $2::float8 / 1000), created_at) END AS backfill_from
                     FROM dispatcher.endpoints WHERE id = $1 AND deleted_at IS NULL FOR UPDATE) before
            WHERE e.id = before.id
          RETURNING e.*, before.backfill_from`,
          [id, DISABLE_RACE_MARGIN_MS],
        );
        const row = rows[0];
        if (!row) return null;
        const { rowCount } =
          row.backfill_from === null
            ? { rowCount: 0 }
            : await client.query(
                `INSERT INTO dispatcher.deliveries (event_id, endpoint_id, state, next_attempt_at)
                 SELECT ev.event_id, $1, 'pending', now() FROM dispatcher.events ev
                  WHERE ev.received_at >= $2 AND ev.event = ANY ($3::text[])
                 ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
                [id, row.backfill_from, row.event_kinds],
              );
        await client.query(
          `UPDATE dispatcher.deliveries SET next_attempt_at = now(), round_failures = 0, first_attempt_at = NULL, updated_at = now()
            WHERE endpoint_id = $1 AND state = 'pending'`,
          [id],
        );
        return { endpoint: toEndpoint(row), backfilled: rowCount ?? 0 };
      },
      { firstStatement: FAN_OUT_LOCK_EXCLUSIVE },
    );
  }

  /**
   * Rotates an endpoint's signing secret under a lock of its row, so rotations of one endpoint
   * run one at a time: `store(nextVersion)` keeps the new secret (in the vault) while the row is
   * locked, then `nextVersion` becomes the signing secret and the current one the previous
   * secret until `previousExpiresAt`.
   *
   * @returns the endpoint after the rotation and the previous secret version it replaced
   *   (to delete), or `null` when there is no such endpoint.
   */
  async rotate(
    id: string,
    previousExpiresAt: Date,
    store: (nextVersion: number) => Promise<void>,
  ): Promise<{ endpoint: Endpoint; replaced: number | null } | null> {
    return inTransaction(this.pool, async (client) => {
      const current = await this.find(id, client, true);
      if (!current) return null;
      await store(current.secretVersion + 1);
      const { rows } = await client.query<Row>(
        `UPDATE dispatcher.endpoints SET secret_version = secret_version + 1, previous_secret_version = secret_version,
                previous_secret_expires_at = $2, updated_at = now()
          WHERE id = $1 RETURNING *`,
        [id, previousExpiresAt],
      );
      return { endpoint: toEndpoint(rows[0]!), replaced: current.previousSecretVersion };
    });
  }

  /** Endpoints whose previous secret's overlap ended, with that secret's version. */
  async expiredPreviousSecrets(now: Date): Promise<Array<{ id: string; version: number }>> {
    const { rows } = await this.pool.query<{ id: string; version: number }>(
      'SELECT id, previous_secret_version AS version FROM dispatcher.endpoints WHERE previous_secret_expires_at <= $1',
      [now],
    );
    return rows;
  }

  /** Forgets an endpoint's previous secret, once it was deleted from the vault (unless a rotation replaced it meanwhile). */
  async forgetPreviousSecret(id: string, version: number): Promise<void> {
    await this.pool.query(
      'UPDATE dispatcher.endpoints SET previous_secret_version = NULL, previous_secret_expires_at = NULL WHERE id = $1 AND previous_secret_version = $2',
      [id, version],
    );
  }

  /** Deleted endpoints whose secrets are still to be deleted from the vault, with their highest secret version. */
  async deletedWithSecrets(): Promise<Array<{ id: string; secretVersion: number }>> {
    const { rows } = await this.pool.query<{ id: string; secret_version: number }>(
      'SELECT id, secret_version FROM dispatcher.endpoints WHERE deleted_at IS NOT NULL AND secrets_removed_at IS NULL',
    );
    return rows.map((r) => ({ id: r.id, secretVersion: r.secret_version }));
  }

  /** Records that a deleted endpoint's secrets are gone from the vault. */
  async markSecretsRemoved(id: string): Promise<void> {
    await this.pool.query('UPDATE dispatcher.endpoints SET secrets_removed_at = now() WHERE id = $1', [id]);
  }

  /**
   * Soft-deletes an endpoint: disabled and hidden, its pending deliveries cancelled, its history
   * kept; its secrets are deleted from the vault afterwards (`deletedWithSecrets`). One transaction.
   *
   * @returns its latest secret version (versions 1 to it exist), or `null` when there was none.
   */
  async delete(id: string): Promise<number | null> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ secret_version: number }>(
        `UPDATE dispatcher.endpoints SET deleted_at = now(), enabled = false, disabled_reason = 'admin', disabled_at = now(), updated_at = now()
          WHERE id = $1 AND deleted_at IS NULL RETURNING secret_version`,
        [id],
      );
      const row = rows[0];
      if (!row) return null;
      await client.query(
        `UPDATE dispatcher.deliveries SET state = 'cancelled', lease_token = NULL, next_attempt_at = NULL, updated_at = now()
          WHERE endpoint_id = $1 AND state = 'pending'`,
        [id],
      );
      return row.secret_version;
    });
  }
}
