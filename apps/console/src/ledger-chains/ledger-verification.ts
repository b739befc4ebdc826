import {
  LedgerPositionError,
  MerkleFrontier,
  verifyAgainstCheckpoints,
  verifyLedger,
  type ChainBreak,
  type CheckedEvent,
  type CheckpointDisagreement,
  type LedgerCheckpoint,
  type PublishedCheckpointBreak,
  type VerifiableLedger,
} from '@settle/ledger';

/**
 * Why a verification stopped: a break of the chains as `verifyLedger` reports it
 * (docs/ledger.md, "Tamper evidence"), or the checkpoint an incremental run starts from is gone
 * (`CHECKPOINT_MISSING`: the event at the last verified position was deleted) or changed
 * (`CHECKPOINT_MISMATCH`: it no longer carries the global hash the console recorded for it, so
 * history up to it was rewritten with recomputed hashes), or the ledger disagrees with a signed
 * checkpoint read from the checkpoint sink (docs/ledger.md, "Verifying against the
 * checkpoints"): a checkpoint that cannot be used (`CHECKPOINT_UNVERIFIED`, `CHECKPOINT_INVALID`,
 * `CHECKPOINT_OTHER_LEDGER`, `CHECKPOINT_MISFILED`), or one the events no longer match
 * (`ROOT_MISMATCH`, `GLOBAL_HASH_MISMATCH`, `LEDGER_SHORTER`: a history rewritten and
 * recomputed, or cut short, after the checkpoint was signed).
 */
export type BreakReason =
  ChainBreak['reason'] | 'CHECKPOINT_MISSING' | 'CHECKPOINT_MISMATCH' | PublishedCheckpointBreak['reason'] | CheckpointDisagreement['reason'];

const SIGNED_CHECKPOINT_REASONS: ReadonlySet<BreakReason> = new Set<BreakReason>([
  'CHECKPOINT_UNVERIFIED',
  'CHECKPOINT_INVALID',
  'CHECKPOINT_OTHER_LEDGER',
  'CHECKPOINT_MISFILED',
  'ROOT_MISMATCH',
  'LEDGER_SHORTER',
]);

/**
 * Whether a break was found against a signed checkpoint rather than in the chains. A
 * `GLOBAL_HASH_MISMATCH` is either: pass `streamId`, `''` for one at a checkpoint's size.
 */
export function isSignedCheckpointBreak(reason: BreakReason, streamId?: string): boolean {
  return SIGNED_CHECKPOINT_REASONS.has(reason) || (reason === 'GLOBAL_HASH_MISMATCH' && streamId === '');
}

/** The Merkle tree's edge as `MerkleFrontier.toJSON` writes it: its size (events) and the roots of its perfect subtrees (hex). */
export type FrontierJson = ReturnType<MerkleFrontier['toJSON']>;

/**
 * Where the check against the signed checkpoints stands after a run (docs/console.md, "Ledger
 * verification"). `checked`, `latest`, `keysFrom` and `frontier` describe the last check that
 * ran; a run that could not check keeps them from the run before and says why in `notChecked`.
 */
export interface CheckpointState {
  /** `null` when this run checked the ledger against the signed checkpoints; else why it did not (no sink configured, the sink unreadable, none in it yet, the chains broken). */
  notChecked: string | null;
  /** Signed checkpoints the events up to `frontier.size` were found to agree with, counted since the tree was last computed from the first event. */
  checked: number;
  /** The largest of them: it covers positions 1 to `size`, signed at `at`. */
  latest: { size: number; at: Date } | null;
  /** Whose keys were trusted: `LEDGER_CHECKPOINT_KEYS`, or `<sink>/keys`. */
  keysFrom: string | null;
  /** The Merkle tree's edge after the last event checked against checkpoints, where the next incremental run continues; `null` before the first check. */
  frontier: FrontierJson | null;
}

/** The state before any check against signed checkpoints. */
export const NO_CHECKPOINT_STATE: Omit<CheckpointState, 'notChecked'> = { checked: 0, latest: null, keysFrom: null, frontier: null };

/**
 * The signed checkpoints as a run reads them, before it reads any event: every one opened, the
 * first that cannot be used, or why none can be read (no sink configured, the sink unreadable, a
 * configured key malformed, none in the sink yet).
 */
export type CheckpointReading =
  | { status: 'opened'; checkpoints: LedgerCheckpoint[]; keysFrom: string }
  | { status: 'broken'; broken: PublishedCheckpointBreak }
  | { status: 'not_checked'; why: string };

/** Reads the signed checkpoints for a run (`PublishedCheckpointReader.read`); it answers `not_checked` rather than throwing when the sink cannot be read. */
/** Reads the sink's checkpoints of a size above `after` (0: every one). */
export type CheckpointReader = (after?: number) => Promise<CheckpointReading>;

/**
 * The events a check against checkpoints reads: position, stream hash and global hash of each
 * event after position `after` up to `upTo` (both positions), in position order.
 */
export type CheckedEventReader = (after: number, upTo: number) => AsyncIterable<CheckedEvent>;

/** Events read per page by {@link checkedEventsOf}. */
const CHECKED_EVENTS_PAGE = 5_000;

/**
 * A {@link CheckedEventReader} over a ledger's `readAll` (pages of 5,000 events).
 *
 * @throws RangeError (when iterated) for an event without a stream or a global hash.
 */
export function checkedEventsOf(ledger: Pick<VerifiableLedger, 'readAll'>): CheckedEventReader {
  return async function* (after: number, upTo: number) {
    for (let from = after; from < upTo;) {
      const page = await ledger.readAll(from, Math.min(CHECKED_EVENTS_PAGE, upTo - from));
      if (page.length === 0) return;
      for (const event of page) {
        if (event.position > upTo) return;
        if (!event.streamHash || !event.globalHash) throw new RangeError(`the event at position ${event.position} has no hashes`);
        yield { position: event.position, streamHash: event.streamHash, globalHash: event.globalHash };
      }
      from = page.at(-1)!.position;
    }
  };
}

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
  /** The first break, `null` when the chains held and the ledger agrees with the signed checkpoints. */
  broken: VerificationBreak | null;
  /** The check against the signed checkpoints. */
  checkpoints: CheckpointState;
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

/** What a run needs besides the ledger to check it against the signed checkpoints. */
export interface CheckpointSources {
  /** Reads the sink; absent: no sink configured. */
  read?: CheckpointReader | undefined;
  /** The events the check recomputes the tree from; absent: the ledger's own `readAll`. */
  events?: CheckedEventReader | undefined;
}

/** Why a run without a configured sink did not check checkpoints. */
export const NO_SINK = 'no checkpoint sink is configured (LEDGER_CHECKPOINT_DIR)';
/** Why a run whose chains broke did not check checkpoints. */
export const CHAINS_BROKEN = 'the hash chains did not hold';

/**
 * Runs a planned verification over a ledger. It reads the signed checkpoints first (before any
 * event, so that each checkpoint's events were committed before the run read them: one beyond
 * the events read means the ledger was cut short). An incremental run then checks its
 * checkpoint: the event at `from` must still be stored with the global hash recorded for it (else
 * `CHECKPOINT_MISSING` or `CHECKPOINT_MISMATCH`), then `verifyLedger` checks every later event
 * and the head. When the chains hold, the ledger is checked against the signed checkpoints
 * (`verifyAgainstCheckpoints`): a full run recomputes the Merkle tree from the first event; an
 * incremental one continues from the tree's edge `previous` kept (from the first event when it
 * kept none) up to the last verified position, so only checkpoints above that edge are checked,
 * and any beyond the last verified position (the head, read after the sink) is `LEDGER_SHORTER`.
 * A published checkpoint that cannot be used, and a disagreement, are breaks at the checkpoint's
 * size (`streamId` `''`, `revision` -1). A sink that cannot be read, or none configured, leaves
 * the checkpoints unchecked (`checkpoints.notChecked` says why) and the chains verified.
 *
 * @param clock - epoch milliseconds, read at the start and at the end.
 * @param sources - the sink's reader and the events' reader ({@link CheckpointSources}).
 * @returns the record to keep, `lastFullAt` carried from `previous` unless this full run passed.
 * @throws what the ledger's reads throw (a lost connection, a ledger not created yet), and
 *   RangeError when the events read for the checkpoints skip a position.
 */
export async function runVerification(
  ledger: VerifiableLedger,
  plan: Exclude<VerificationPlan, { kind: 'wait' }>,
  previous: VerificationRecord | null,
  clock: () => number,
  sources: CheckpointSources = {},
): Promise<VerificationRecord> {
  const startedAt = new Date(clock());
  const from = plan.kind === 'incremental' ? plan.from : 0;
  // What the last check established, kept by a run that cannot check.
  const p = previous?.checkpoints;
  const kept: Omit<CheckpointState, 'notChecked'> = p
    ? { checked: p.checked, latest: p.latest, keysFrom: p.keysFrom, frontier: p.frontier }
    : NO_CHECKPOINT_STATE;
  // An incremental run reads only the checkpoints above the edge it continues from.
  const readAfter = plan.kind === 'incremental' ? (kept.frontier?.size ?? 0) : 0;
  const reading: CheckpointReading = sources.read ? await sources.read(readAfter) : { status: 'not_checked', why: NO_SINK };
  const done = (outcome: {
    verifiedPosition: number;
    globalHash: string;
    eventsChecked: number;
    broken: VerificationBreak | null;
    checkpoints: CheckpointState;
  }): VerificationRecord => {
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
      checkpoints: { ...kept, notChecked: CHAINS_BROKEN },
    });
  if (plan.kind === 'incremental') {
    const [checkpoint] = await ledger.readAll(from - 1, 1);
    if (!checkpoint || checkpoint.position !== from) return checkpointBreak('CHECKPOINT_MISSING', `no event at position ${from}`);
    if (checkpoint.globalHash !== plan.globalHash) return checkpointBreak('CHECKPOINT_MISMATCH', String(checkpoint.globalHash));
  }
  let chains: Awaited<ReturnType<typeof verifyLedger>>;
  try {
    chains = await verifyLedger(ledger, { from });
  } catch (error) {
    // The checkpoint vanished between the check above and the verification's own read.
    if (error instanceof LedgerPositionError) return checkpointBreak('CHECKPOINT_MISSING', `no event at position ${from}`);
    throw error;
  }
  const verified = { verifiedPosition: chains.last, globalHash: chains.globalHash, eventsChecked: chains.checked };
  if (chains.broken) return done({ ...verified, broken: chains.broken, checkpoints: { ...kept, notChecked: CHAINS_BROKEN } });
  const atCheckpoint = (b: { size: number; reason: BreakReason; expected: string; found: string }): VerificationBreak => ({
    position: b.size,
    streamId: '',
    revision: -1,
    reason: b.reason,
    expected: b.expected,
    found: b.found,
  });
  if (reading.status === 'not_checked') return done({ ...verified, broken: null, checkpoints: { ...kept, notChecked: reading.why } });
  if (reading.status === 'broken') return done({ ...verified, broken: atCheckpoint(reading.broken), checkpoints: { ...kept, notChecked: null } });

  // Continue from the kept edge when this run continues the previous one; else from the first event.
  const edge = plan.kind === 'incremental' ? frontierOf(kept.frontier, chains.last) : null;
  const start = edge ?? MerkleFrontier.empty();
  const base = edge ? { checked: kept.checked, latest: kept.latest } : { checked: 0, latest: null };
  const events = (sources.events ?? checkedEventsOf(ledger))(start.size, chains.last);
  const result = await verifyAgainstCheckpoints(events, reading.checkpoints, start);
  if (result.disagreement) {
    return done({ ...verified, broken: atCheckpoint(result.disagreement), checkpoints: { ...kept, notChecked: null, keysFrom: reading.keysFrom } });
  }
  const newest = reading.checkpoints.filter((c) => c.size > start.size && c.size <= chains.last).sort((a, b) => b.size - a.size)[0];
  return done({
    ...verified,
    broken: null,
    checkpoints: {
      notChecked: null,
      checked: base.checked + result.checkpoints,
      latest: newest ? { size: newest.size, at: new Date(newest.at) } : base.latest,
      keysFrom: reading.keysFrom,
      frontier: result.frontier.toJSON(),
    },
  });
}

/** The kept tree edge, when it is a valid one at or below `upTo`; else `null` (the check starts from the first event). */
function frontierOf(json: FrontierJson | null, upTo: number): MerkleFrontier | null {
  if (!json) return null;
  try {
    const frontier = MerkleFrontier.fromJSON(json);
    return frontier.size <= upTo ? frontier : null;
  } catch {
    return null;
  }
}

/**
 * Whether a run's record is worth a row of its own, or only confirms `previous` (its
 * `checkedAt`, and `lastFullAt` for a full run, move): a run that checked no event, found no
 * break and leaves the same position, hash and check against the signed checkpoints adds
 * nothing (an idle minute; a full run over a ledger still empty).
 */
export function onlyConfirms(previous: VerificationRecord | null, next: VerificationRecord): boolean {
  return (
    previous !== null &&
    previous.broken === null &&
    next.broken === null &&
    next.eventsChecked === 0 &&
    next.verifiedPosition === previous.verifiedPosition &&
    next.globalHash === previous.globalHash &&
    sameCheckpointState(previous.checkpoints, next.checkpoints)
  );
}

function sameCheckpointState(a: CheckpointState, b: CheckpointState): boolean {
  return (
    a.notChecked === b.notChecked &&
    a.checked === b.checked &&
    a.keysFrom === b.keysFrom &&
    a.latest?.size === b.latest?.size &&
    a.latest?.at.getTime() === b.latest?.at.getTime() &&
    a.frontier?.size === b.frontier?.size
  );
}
