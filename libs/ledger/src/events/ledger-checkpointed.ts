import { deterministicId } from '@settle/platform';
import { z } from 'zod';
import type { LedgerEventInput, RecordedLedgerEvent } from '../ports/ledger.port.js';
import { LedgerEventShapeError } from './transaction-outcome.js';

/**
 * The ledger's own stream of checkpoints (docs/ledger.md, "Checkpoints"): one `LedgerCheckpointed`
 * fact per signed checkpoint, so the ledger records every statement made about it. A checkpoint
 * of size n is appended after position n, so it is covered by the next checkpoint, never by itself.
 */
export const CHECKPOINT_STREAM = 'ledger-checkpoints';

/** The event type of a checkpoint fact. */
export const LEDGER_CHECKPOINTED = 'LedgerCheckpointed';

/**
 * The `data` of a `LedgerCheckpointed` event: the checkpoint's content (`origin`; `size`, the
 * events it covers, positions 1 to `size`; `root`, their Merkle root, 64 hex digits; `global_hash`,
 * the global chain's hash at `size`; `at`, when it was signed, ISO 8601 UTC), the public key that
 * signed it (`key`, the verifier key's text `<name>+<key id>+<key>`, docs/ledger.md, "The
 * checkpoint key"), and the signed note exactly as published (`note`).
 */
export const ledgerCheckpointedData = z.looseObject({
  origin: z.string().min(1),
  size: z.number().int().nonnegative(),
  root: z.string().regex(/^[0-9a-f]{64}$/),
  global_hash: z.string().regex(/^[0-9a-f]{64}$/),
  at: z.iso.datetime(),
  key: z.string().min(1),
  note: z.string().min(1),
});

/** See {@link ledgerCheckpointedData}. */
export type LedgerCheckpointedData = z.infer<typeof ledgerCheckpointedData>;

/**
 * The ledger event of a checkpoint. Its id follows from the origin and size, so the same
 * checkpoint made twice (two checkpointers, a retry) is stored once.
 */
export function ledgerCheckpointedEvent(data: LedgerCheckpointedData): LedgerEventInput {
  const id = deterministicId(LEDGER_CHECKPOINTED, data.origin, data.size);
  return { eventId: id, type: LEDGER_CHECKPOINTED, data, metadata: { correlationId: id, causationId: id } };
}

/**
 * The typed data of a stored checkpoint fact.
 *
 * @throws LedgerEventShapeError when it is not one.
 */
export function ledgerCheckpointedOf(event: Pick<RecordedLedgerEvent, 'eventId' | 'position' | 'type' | 'data'>): LedgerCheckpointedData {
  const parsed = ledgerCheckpointedData.safeParse(event.data);
  if (event.type !== LEDGER_CHECKPOINTED || !parsed.success) throw new LedgerEventShapeError(event.eventId, event.position, 'a LedgerCheckpointed event');
  return parsed.data;
}
