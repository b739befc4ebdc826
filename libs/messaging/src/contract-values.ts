/**
 * Value sets of the contracts that are not the domain's own: a string field of an Avro schema
 * whose values are a closed list (the generated types use them as literal unions, the codec
 * checks them at decode time).
 */

/**
 * What a verification did to a transaction (`ConsensusResult.outcome`, `SettlementRecorded.outcome`):
 * the state it moved to, or `UNCHANGED` when the answer recorded nothing.
 */
export const CONSENSUS_OUTCOMES = ['SETTLED_CONSENSUS', 'FAILED_DECLINED', 'RECOVERING', 'STATE_MISMATCH', 'MANUAL_REVIEW', 'UNCHANGED'] as const;
/** One of {@link CONSENSUS_OUTCOMES}. */
export type ConsensusOutcome = (typeof CONSENSUS_OUTCOMES)[number];
