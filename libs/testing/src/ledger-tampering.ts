import { GENESIS_HASH, globalHash, streamHash, type HashedFields } from '@settle/ledger';
import type pg from 'pg';
import { withTriggersOff } from './infra.js';

/**
 * What a database superuser can do to a PostgreSQL ledger that the hash chains alone cannot show
 * (docs/ledger.md, "Checkpoints"): with the triggers off, rewrite the data of the event at
 * `position` (`edit` gives the new data) and recompute every stream hash and global hash from
 * there, the streams' heads and the ledger's head, so that `./settle ledger verify`'s chains hold
 * over the rewritten history. Only a checkpoint published before can tell.
 *
 * @returns the rewritten global hash at each position.
 */
export async function rewriteLedgerHistory(
  pool: pg.Pool,
  position: number,
  edit: (data: Record<string, unknown>) => Record<string, unknown>,
): Promise<Map<number, string>> {
  const { rows } = await pool.query<{
    position: string;
    stream_id: string;
    revision: string;
    event_id: string;
    event_type: string;
    data: Record<string, unknown>;
    metadata: Record<string, unknown>;
    recorded_at: Date;
  }>('SELECT position, stream_id, revision, event_id, event_type, data, metadata, recorded_at FROM ledger.events ORDER BY position');
  const streams = new Map<string, string>();
  const globals = new Map<number, string>();
  let global = GENESIS_HASH;
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const updates: string[] = [];
  for (const row of rows) {
    const data = Number(row.position) === position ? edit(row.data) : row.data;
    const event: HashedFields = {
      streamId: row.stream_id,
      revision: Number(row.revision),
      eventId: row.event_id,
      type: row.event_type,
      data,
      metadata: row.metadata,
      recordedAt: row.recorded_at,
    };
    const stream = streamHash(streams.get(row.stream_id) ?? GENESIS_HASH, event);
    streams.set(row.stream_id, stream);
    global = globalHash(global, Number(row.position), stream);
    globals.set(Number(row.position), global);
    updates.push(
      `UPDATE ledger.events SET data = ${literal(JSON.stringify(data))}::jsonb, stream_hash = '${stream}', global_hash = '${global}' WHERE position = ${row.position};`,
      `UPDATE ledger.streams SET stream_hash = '${stream}' WHERE stream_id = ${literal(row.stream_id)} AND revision = ${row.revision};`,
    );
  }
  updates.push(`UPDATE ledger.head SET global_hash = '${global}';`);
  await withTriggersOff(pool, updates.join('\n'));
  return globals;
}
