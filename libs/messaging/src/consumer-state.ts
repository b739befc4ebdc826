import type { Consumer } from 'kafkajs';

/** Partitions assigned to this member, per topic, as the group coordinator handed them out. */
export type Assignment = Readonly<Record<string, readonly number[]>>;

/**
 * Where a consumer-group member stands: `connecting` until it first joins its group; `joined`
 * with an assignment (possibly empty: a member of a group with more members than partitions
 * holds none); `rebalancing` while the group hands partitions out again; `crashed` after a
 * kafkajs crash (until it joins again, when kafkajs restarts it); `stopped` once stopped or
 * disconnected (for good once the loop itself was asked to stop).
 */
export type ConsumerPhase = 'connecting' | 'joined' | 'rebalancing' | 'crashed' | 'stopped';

/** A consumer-group member's state, as its readiness reports it. */
export interface ConsumerState {
  groupId: string;
  phase: ConsumerPhase;
  /** The partitions it holds (empty unless `joined`). */
  assignment: Assignment;
  /** How many partitions it holds. */
  partitions: number;
  /** When it entered this phase, epoch milliseconds. */
  since: number;
  /** The crash's message, in phase `crashed`. */
  error?: string;
  /** In phase `stopped`: the loop was asked to stop, so no later event changes the state. */
  final?: boolean;
}

/** What kafkajs tells about a member, as {@link nextConsumerState} reads it. */
export type ConsumerStateEvent =
  | { kind: 'joined'; assignment: Assignment }
  | { kind: 'rebalancing' }
  | { kind: 'crashed'; error: string }
  /** `final`: the loop was asked to stop (nothing after it counts); otherwise kafkajs stopped on its way to a crash. */
  | { kind: 'stopped'; final: boolean };

/** The state of a member that has not joined its group yet. */
export function initialConsumerState(groupId: string, now: number): ConsumerState {
  return { groupId, phase: 'connecting', assignment: {}, partitions: 0, since: now };
}

/**
 * The state after an event (pure): a join sets the assignment; a rebalance, a crash or a stop
 * drops it (its partitions may be gone). A member stopped for good (`final`) stays stopped;
 * one that kafkajs stopped on its way to a crash (it emits STOP and DISCONNECT, then CRASH,
 * then restarts the consumer, which joins again) follows the crash and the join.
 */
export function nextConsumerState(state: ConsumerState, event: ConsumerStateEvent, now: number): ConsumerState {
  if (state.phase === 'stopped' && state.final) return state;
  switch (event.kind) {
    case 'joined': {
      const partitions = Object.values(event.assignment).reduce((n, list) => n + list.length, 0);
      return { groupId: state.groupId, phase: 'joined', assignment: event.assignment, partitions, since: now };
    }
    case 'rebalancing':
      return { groupId: state.groupId, phase: 'rebalancing', assignment: {}, partitions: 0, since: now };
    case 'crashed':
      return { groupId: state.groupId, phase: 'crashed', assignment: {}, partitions: 0, since: now, error: event.error };
    case 'stopped':
      return { groupId: state.groupId, phase: 'stopped', assignment: {}, partitions: 0, since: now, ...(event.final ? { final: true } : {}) };
  }
}

/**
 * Follows a kafkajs consumer's instrumentation events (`GROUP_JOIN`, `REBALANCING`, `CRASH`,
 * `STOP`, `DISCONNECT`) into a {@link ConsumerState}.
 *
 * @param stopRequested - whether the loop was asked to stop: a STOP or DISCONNECT then is for
 *   good; otherwise it is kafkajs's own on its way to a crash, and the restarted consumer's join
 *   makes the member ready again.
 * @returns the current state.
 */
export function trackConsumerState(consumer: Consumer, groupId: string, stopRequested: () => boolean, now: () => number = Date.now): () => ConsumerState {
  let state = initialConsumerState(groupId, now());
  const apply = (event: ConsumerStateEvent) => {
    state = nextConsumerState(state, event, now());
  };
  consumer.on(consumer.events.GROUP_JOIN, (event) => apply({ kind: 'joined', assignment: event.payload.memberAssignment }));
  consumer.on(consumer.events.REBALANCING, () => apply({ kind: 'rebalancing' }));
  consumer.on(consumer.events.CRASH, (event) => apply({ kind: 'crashed', error: event.payload.error.message }));
  consumer.on(consumer.events.STOP, () => apply({ kind: 'stopped', final: stopRequested() }));
  consumer.on(consumer.events.DISCONNECT, () => apply({ kind: 'stopped', final: stopRequested() }));
  return () => state;
}
