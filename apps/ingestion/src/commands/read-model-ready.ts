import type { PoolClient } from '@settle/platform';

/** Whether `read_model`'s tables the commands read exist yet (the ledger projector owns and creates them): asked inside a transaction without failing it, as a missing table would. */
export async function readModelExists(client: Pick<PoolClient, 'query'>): Promise<boolean> {
  const { rows } = await client.query<{ ready: boolean }>(
    `SELECT to_regclass('read_model.transaction_status') IS NOT NULL AND to_regclass('read_model.latest_verification') IS NOT NULL AS ready`,
  );
  return rows[0]?.ready === true;
}
