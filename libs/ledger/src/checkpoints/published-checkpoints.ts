import { openLedgerCheckpoint, type CheckpointDisagreement, type LedgerCheckpoint } from '../chain/ledger-checkpoints.js';
import { NoteError, parseVerifierKey } from '../chain/signed-note.js';
import type { CheckpointSink } from './checkpoint-sink.js';

/** Why a published checkpoint cannot be used, beside the disagreements of `verifyAgainstCheckpoints`. */
export type PublishedCheckpointProblem = 'CHECKPOINT_UNVERIFIED' | 'CHECKPOINT_INVALID' | 'CHECKPOINT_OTHER_LEDGER' | 'CHECKPOINT_MISFILED';

/** A checkpoint in the sink that cannot be used, in the shape of a disagreement. */
export interface PublishedCheckpointBreak extends Omit<CheckpointDisagreement, 'reason'> {
  reason: PublishedCheckpointProblem;
}

/** The checkpoints of a sink, opened: every one, or the first that cannot be used. */
export type PublishedCheckpoints =
  { status: 'opened'; checkpoints: LedgerCheckpoint[]; keysFrom: string } | { status: 'broken'; broken: PublishedCheckpointBreak };

/**
 * Reads and opens every checkpoint of a sink (docs/ledger.md, "Verifying against the
 * checkpoints"): each note must be signed by a trusted key (`CHECKPOINT_UNVERIFIED`), well formed
 * (`CHECKPOINT_INVALID`), of this ledger (`CHECKPOINT_OTHER_LEDGER`) and filed under its own size
 * (`CHECKPOINT_MISFILED`).
 *
 * @param trusted - the verifier keys to trust (an auditor's `LEDGER_CHECKPOINT_KEYS`); empty or
 *   absent, those the sink published in `keys/`.
 * @param options.after - only the checkpoints of a size above this (a reader that checked the
 *   smaller ones before).
 * @throws CheckpointSinkError when the sink cannot be read; NoteError `NOTE.INVALID` for a
 *   trusted key that is malformed.
 */
export async function openPublishedCheckpoints(
  sink: CheckpointSink,
  origin: string,
  trusted: readonly string[] = [],
  options: { after?: number } = {},
): Promise<PublishedCheckpoints> {
  const notes = await sink.readAll(options);
  const keysFrom = trusted.length > 0 ? 'LEDGER_CHECKPOINT_KEYS' : `${sink.describe}/keys`;
  const keys = (trusted.length > 0 ? trusted : await sink.readKeys()).map(parseVerifierKey);
  const checkpoints: LedgerCheckpoint[] = [];
  for (const { size, note } of notes) {
    const broken = (reason: PublishedCheckpointProblem, expected: string, found: string) => ({
      status: 'broken' as const,
      broken: { size, reason, expected, found },
    });
    let checkpoint: LedgerCheckpoint;
    try {
      checkpoint = openLedgerCheckpoint(note, keys);
    } catch (error) {
      if (!(error instanceof NoteError)) throw error;
      return broken(error.code === 'NOTE.UNVERIFIED' ? 'CHECKPOINT_UNVERIFIED' : 'CHECKPOINT_INVALID', `a note signed by a key of ${keysFrom}`, error.message);
    }
    if (checkpoint.origin !== origin) return broken('CHECKPOINT_OTHER_LEDGER', origin, checkpoint.origin);
    if (checkpoint.size !== size) return broken('CHECKPOINT_MISFILED', String(size), String(checkpoint.size));
    checkpoints.push(checkpoint);
  }
  return { status: 'opened', checkpoints, keysFrom };
}

/** Verifier keys from a list in configuration: one per line or comma-separated (`LEDGER_CHECKPOINT_KEYS`). */
export function parseTrustedKeys(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[\n,]/u)
    .map((k) => k.trim())
    .filter(Boolean);
}
