import { LedgerPositionError, verifyLedger, type ChainBreak, type VerifiableLedger } from '@settle/ledger';

/**
 * Why a verification stopped: a break of the chains as `verifyLedger` reports it
 * (docs/ledger.md, "Tamper evidence"), or the checkpoint an incremental run starts from is gone
 * (`CHECKPOINT_MISSING`: the event at the last verified position was deleted) or changed
 * (`CHECKPOINT_MISMATCH`: it no longer carries the global hash the console recorded for it, so
 * history up to it was rewritten with recomputed hashes).
 */
export type BreakReason = ChainBreak['reason'] | 'CHECKPOINT_MISSING' | 'CHECKPOINT_MISMATCH';

/** The first place where the chains did not hold. */
export interface VerificationBreak {
  position: number;
  /** `''` when the break is not at one stream's event (the head, a checkpoint). */
  streamId: string;
  /** -1 when the break is not at one stream's event. */
  revision: number;
  reason: BreakReason;
  expected: string;
  found: string;
}

/** One verification's outcome, as recorded in `console.ledger_verifications`. */
export interface VerificationRecord {
  kind: 'full' | 'incremental';
  /** The checkpoint it started after (0: the first event). */
  fromPosition: number;
  /** The last event that held. */
  verifiedPosition: number;
  /** The global hash after {@link VerificationRecord.verifiedPosition}. */
  globalHash: string;
  eventsChecked: number;
  startedAt: Date;
  finishedAt: Date;
  /** The latest run that confirmed this outcome (a later run with nothing new to check moves it). */
  checkedAt: Date;
  /** When the latest full verification that passed finished; `null` before the first. */
  lastFullAt: Date | null;
  /** The first break, `null` when the chains held. */
  broken: VerificationBreak | null;
}

/** What the next run does. */
export type VerificationPlan =
  | { kind: 'full' }
  | { kind: 'incremental'; from: number; globalHash: string }
  /** Nothing now: the chains are broken and were checked again less than the re-check time ago. */
  | { kind: 'wait' };

/** When full verifications run (docs/console.md, "Ledger verification"). */
export interface VerificationPolicy {
  /** A full verification at least this often, milliseconds (`CONSOLE_LEDGER_FULL_VERIFY_INTERVAL_MS`). */
  fullEveryMs: number;
  /** While broken, a full re-verification at most this often, milliseconds. */
  brokenRecheckMs: number;
}

/** While the chains are broken, how often a full re-verification runs, milliseconds (10 minutes). */
export const BROKEN_RECHECK_MS = 10 * 60_000;

/**
 * The next run after `latest` (pure): the first run, a scheduled one after `fullEveryMs`, and
 * every run while a break is reported are full (a break stays reported until a full
 * verification passes), at most every `brokenRecheckMs` while broken; any other continues from
 * the last verified position and its recorded global hash.
 *
 * @param now - epoch milliseconds.
 */
export function planVerification(latest: VerificationRecord | null, now: number, policy: VerificationPolicy): VerificationPlan {
  if (!latest) return { kind: 'full' };
  if (latest.broken) return now - latest.checkedAt.getTime() >= policy.brokenRecheckMs ? { kind: 'full' } : { kind: 'wait' };
  if (!latest.lastFullAt || now - latest.lastFullAt.getTime() >= policy.fullEveryMs) return { kind: 'full' };
  if (latest.verifiedPosition === 0) return { kind: 'full' };
  return { kind: 'incremental', from: latest.verifiedPosition, globalHash: latest.globalHash };
}

/**
 * Runs a planned verification over a ledger. An incremental run first checks its checkpoint:
 * the event at `from` must still be stored with the global hash recorded for it (else
 * `CHECKPOINT_MISSING` or `CHECKPOINT_MISMATCH`), then `verifyLedger` checks every later event
 * and the head.
 *
 * @param clock - epoch milliseconds, read at the start and at the end.
 * @returns the record to keep, `lastFullAt` carried from `previous` unless this full run passed.
 * @throws what the ledger's reads throw (a lost connection, a ledger not created yet).
 */
export async function runVerification(
  ledger: VerifiableLedger,
  plan: Exclude<VerificationPlan, { kind: 'wait' }>,
  previous: VerificationRecord | null,
  clock: () => number,
): Promise<VerificationRecord> {
  const startedAt = new Date(clock());
  const from = plan.kind === 'incremental' ? plan.from : 0;
  const done = (outcome: { verifiedPosition: number; globalHash: string; eventsChecked: number; broken: VerificationBreak | null }): VerificationRecord => {
    const finishedAt = new Date(clock());
    const passedFull = plan.kind === 'full' && outcome.broken === null;
    return {
      kind: plan.kind,
      fromPosition: from,
      ...outcome,
      startedAt,
      finishedAt,
      checkedAt: finishedAt,
      lastFullAt: passedFull ? finishedAt : (previous?.lastFullAt ?? null),
    };
  };
  const checkpointBreak = (reason: BreakReason, found: string): VerificationRecord =>
    done({
      verifiedPosition: from,
      globalHash: plan.kind === 'incremental' ? plan.globalHash : '',
      eventsChecked: 0,
      broken: { position: from, streamId: '', revision: -1, reason, expected: plan.kind === 'incremental' ? plan.globalHash : '', found },
    });
  if (plan.kind === 'incremental') {
    const [checkpoint] = await ledger.readAll(from - 1, 1);
    if (!checkpoint || checkpoint.position !== from) return checkpointBreak('CHECKPOINT_MISSING', `no event at position ${from}`);
    if (checkpoint.globalHash !== plan.globalHash) return checkpointBreak('CHECKPOINT_MISMATCH', String(checkpoint.globalHash));
  }
  try {
    const result = await verifyLedger(ledger, { from });
    return done({ verifiedPosition: result.last, globalHash: result.globalHash, eventsChecked: result.checked, broken: result.broken });
  } catch (error) {
    // The checkpoint vanished between the check above and the verification's own read.
    if (error instanceof LedgerPositionError) return checkpointBreak('CHECKPOINT_MISSING', `no event at position ${from}`);
    throw error;
  }
}

/**
 * Whether a run's record is worth a row of its own, or only confirms `previous` (its
 * `checkedAt`, and `lastFullAt` for a full run, move): a run that checked no event, found no
 * break and leaves the same position and hash adds nothing (an idle minute; a full run over a
 * ledger still empty).
 */
export function onlyConfirms(previous: VerificationRecord | null, next: VerificationRecord): boolean {
  return (
    previous !== null &&
    previous.broken === null &&
    next.broken === null &&
    next.eventsChecked === 0 &&
    next.verifiedPosition === previous.verifiedPosition &&
    next.globalHash === previous.globalHash
  );
}
