import type { Pool } from '@settle/platform';
import { CHECKPOINT_STREAM, ledgerCheckpointedOf } from '../events/ledger-checkpointed.js';
import { ENTITLEMENT_STREAM_CATEGORY } from '../events/entitlement-granted.js';
import { PostgresMerkleLog } from '../postgres/postgres-merkle-log.js';

/** A receipt's proof, as the dispatcher answers it (`GET /v1/receipts/{event_id}/proof`; wire names). */
export interface ReceiptProofBody {
  event_id: string;
  /** The receipt the event was delivered with: its global position and stream hash (hex). */
  receipt: { ledger_position: number; ledger_hash: string };
  /** The latest signed checkpoint, which covers the event, as published. */
  checkpoint: string;
  /** The checkpoint's size. */
  tree_size: number;
  /** `ledger_position - 1`. */
  leaf_index: number;
  /** The inclusion proof (RFC 9162), 64-hex-digit hashes from the leaf up. */
  inclusion_proof: string[];
}

/** What {@link PostgresReceiptProofs.proofFor} found. */
export type ReceiptProofAnswer =
  | { status: 'proven'; proof: ReceiptProofBody }
  /** The event is in the ledger, but no signed checkpoint covers it yet (the next one will, within its interval). */
  | { status: 'not_covered'; position: number }
  /** No entitlement event of the ledger has this id. */
  | { status: 'unknown' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u;

/**
 * Proofs of customers' receipts on a PostgreSQL ledger (docs/ledger.md, "Receipts"): for an
 * entitlement event delivered to a customer (a grant, revocation or reinstatement, by its
 * customer-facing `event_id`, which is its ledger event id), the latest signed checkpoint and the
 * inclusion proof of the event's leaf in the tree that checkpoint signed, read from the stored
 * Merkle nodes (about 2 log2(size) of them, one query). Only entitlement events are answered: a
 * customer's key proves its own deliveries, not the rest of the ledger.
 */
export class PostgresReceiptProofs {
  private readonly merkle: PostgresMerkleLog;

  constructor(private readonly pool: Pool) {
    this.merkle = new PostgresMerkleLog(pool);
  }

  /**
   * @param eventId - the delivered event's `event_id` (anything else is `unknown`).
   * @throws database errors; RangeError when the tree's stored nodes are missing (they are made
   *   with each checkpoint, so only a database restored without them).
   */
  async proofFor(eventId: string): Promise<ReceiptProofAnswer> {
    const id = eventId.toLowerCase();
    if (!UUID.test(id)) return { status: 'unknown' };
    const { rows } = await this.pool.query<{ position: string; stream_hash: string }>(
      'SELECT position, stream_hash FROM ledger.events WHERE event_id = $1 AND starts_with(stream_id, $2)',
      [id, `${ENTITLEMENT_STREAM_CATEGORY}-`],
    );
    const event = rows[0];
    if (!event) return { status: 'unknown' };
    const position = Number(event.position);
    const latest = await this.pool.query<{ event_id: string; position: string; event_type: string; data: Record<string, unknown> }>(
      'SELECT event_id, position, event_type, data FROM ledger.events WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1',
      [CHECKPOINT_STREAM],
    );
    const row = latest.rows[0];
    if (!row) return { status: 'not_covered', position };
    const checkpoint = ledgerCheckpointedOf({ eventId: row.event_id, position: Number(row.position), type: row.event_type, data: row.data });
    if (checkpoint.size < position) return { status: 'not_covered', position };
    const proof = await this.merkle.inclusionProof(position, checkpoint.size);
    return {
      status: 'proven',
      proof: {
        event_id: id,
        receipt: { ledger_position: position, ledger_hash: event.stream_hash },
        checkpoint: checkpoint.note,
        tree_size: checkpoint.size,
        leaf_index: position - 1,
        inclusion_proof: proof.proof.map((hash) => hash.toString('hex')),
      },
    };
  }
}
