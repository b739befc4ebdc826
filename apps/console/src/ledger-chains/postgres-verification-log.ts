import type { Pool } from '@settle/platform';
import type { BreakReason, FrontierJson, VerificationRecord } from './ledger-verification.js';
import type { VerificationLog } from './verification-log.port.js';

/** Key of the session-level advisory lock one verifying console instance holds (`hashtextextended` of this name). */
const LOCK_NAME = 'console-ledger-verification';

interface Row {
  kind: 'full' | 'incremental';
  from_position: string;
  verified_position: string;
  global_hash: string;
  events_checked: string;
  started_at: Date;
  finished_at: Date;
  checked_at: Date;
  last_full_at: Date | null;
  broken_position: string | null;
  broken_stream_id: string | null;
  broken_revision: string | null;
  broken_reason: BreakReason | null;
  broken_expected: string | null;
  broken_found: string | null;
  checkpoint_note: string | null;
  checkpoints_checked: number;
  latest_checkpoint_size: string | null;
  latest_checkpoint_at: Date | null;
  checkpoint_keys_from: string | null;
  checkpoint_frontier: FrontierJson | null;
}

function recordOf(row: Row): VerificationRecord {
  return {
    kind: row.kind,
    fromPosition: Number(row.from_position),
    verifiedPosition: Number(row.verified_position),
    globalHash: row.global_hash,
    eventsChecked: Number(row.events_checked),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    checkedAt: row.checked_at,
    lastFullAt: row.last_full_at,
    broken:
      row.broken_reason === null
        ? null
        : {
            position: Number(row.broken_position),
            streamId: row.broken_stream_id ?? '',
            revision: Number(row.broken_revision ?? -1),
            reason: row.broken_reason,
            expected: row.broken_expected ?? '',
            found: row.broken_found ?? '',
          },
    checkpoints: {
      notChecked: row.checkpoint_note,
      checked: Number(row.checkpoints_checked),
      latest:
        row.latest_checkpoint_size === null || row.latest_checkpoint_at === null
          ? null
          : { size: Number(row.latest_checkpoint_size), at: row.latest_checkpoint_at },
      keysFrom: row.checkpoint_keys_from,
      frontier: row.checkpoint_frontier,
    },
  };
}

/**
 * The console's ledger verifications in `console.ledger_verifications` (console migrations
 * 0003, and 0006 for the check against the signed checkpoints). One instance verifies at a time: {@link PostgresVerificationLog.exclusively} takes a
 * session-level advisory lock with `pg_try_advisory_lock` on a connection of its own for the
 * run, and skips when another session holds it (the lock goes with the connection if the
 * instance dies).
 */
export class PostgresVerificationLog implements VerificationLog {
  constructor(private readonly pool: Pool) {}

  async exclusively<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const client = await this.pool.connect();
    let locked = false;
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [LOCK_NAME]);
      locked = rows[0]?.locked === true;
      if (!locked) return { ran: false };
      return { ran: true, value: await work() };
    } finally {
      if (locked) await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [LOCK_NAME]).catch(() => undefined);
      client.release();
    }
  }

  async latest(): Promise<VerificationRecord | null> {
    const { rows } = await this.pool.query<Row>('SELECT * FROM console.ledger_verifications ORDER BY id DESC LIMIT 1');
    return rows[0] ? recordOf(rows[0]) : null;
  }

  async append(record: VerificationRecord): Promise<void> {
    const b = record.broken;
    const c = record.checkpoints;
    await this.pool.query(
      `INSERT INTO console.ledger_verifications (kind, from_position, verified_position, global_hash, events_checked, started_at, finished_at,
                                                 checked_at, last_full_at, broken_position, broken_stream_id, broken_revision, broken_reason,
                                                 broken_expected, broken_found, checkpoint_note, checkpoints_checked,
                                                 latest_checkpoint_size, latest_checkpoint_at, checkpoint_keys_from, checkpoint_frontier)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
      [
        record.kind,
        record.fromPosition,
        record.verifiedPosition,
        record.globalHash,
        record.eventsChecked,
        record.startedAt,
        record.finishedAt,
        record.checkedAt,
        record.lastFullAt,
        b?.position ?? null,
        b?.streamId ?? null,
        b?.revision ?? null,
        b?.reason ?? null,
        b?.expected ?? null,
        b?.found ?? null,
        c.notChecked,
        c.checked,
        c.latest?.size ?? null,
        c.latest?.at ?? null,
        c.keysFrom,
        c.frontier === null ? null : JSON.stringify(c.frontier),
      ],
    );
  }

  async confirmLatest(confirmation: Pick<VerificationRecord, 'checkedAt' | 'lastFullAt'>): Promise<void> {
    await this.pool.query(
      'UPDATE console.ledger_verifications SET checked_at = $1, last_full_at = $2 WHERE id = (SELECT max(id) FROM console.ledger_verifications)',
      [confirmation.checkedAt, confirmation.lastFullAt],
    );
  }
}
