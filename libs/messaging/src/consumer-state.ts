import type { Consumer } from 'kafkajs';

/** Partitions assigned to this member, per topic, as the group coordinator handed them out. */
export type Assignment = Readonly<Record<string, readonly number[]>>;

/**
 * Where a consumer-group member stands: `connecting` until it first joins its group; `joined`
 * with an assignment (possibly empty: a member of a group with more members than partitions
 * holds none); `rebalancing` while the group hands partitions out again; `crashed` after a
 * kafkajs crash (until it joins again, when kafkajs restarts it); `stopped` once stopped or
 * disconnected.
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
}

/** What kafkajs tells about a member, as {@link nextConsumerState} reads it. */
export type ConsumerStateEvent =
  { kind: 'joined'; assignment: Assignment } | { kind: 'rebalancing' } | { kind: 'crashed'; error: string } | { kind: 'stopped' };

/** The state of a member that has not joined its group yet. */
export function initialConsumerState(groupId: string, now: number): ConsumerState {
  return { groupId, phase: 'connecting', assignment: {}, partitions: 0, since: now };
}

/**
 * The state after an event (pure): a join sets the assignment; a rebalance, a crash or a stop
 * drops it (its partitions may be gone). A stopped member stays stopped.
 */
export function nextConsumerState(state: ConsumerState, event: ConsumerStateEvent, now: number): ConsumerState {
  if (state.phase === 'stopped') return state;
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
      return { groupId: state.groupId, phase: 'stopped', assignment: {}, partitions: 0, since: now };
  }
}

/**
 * Follows a kafkajs consumer's instrumentation events (`GROUP_JOIN`, `REBALANCING`, `CRASH`,
 * `STOP`, `DISCONNECT`) into a {@link ConsumerState}.
 *
 * @returns the current state.
 */
export function trackConsumerState(consumer: Consumer, groupId: string, now: () => number = Date.now): () => ConsumerState {
  let state = initialConsumerState(groupId, now());
  const apply = (event: ConsumerStateEvent) => {
    state = nextConsumerState(state, event, now());
  };
  consumer.on(consumer.events.GROUP_JOIN, (event) => apply({ kind: 'joined', assignment: event.payload.memberAssignment }));
  consumer.on(consumer.events.REBALANCING, () => apply({ kind: 'rebalancing' }));
  consumer.on(consumer.events.CRASH, (event) => apply({ kind: 'crashed', error: event.payload.error.message }));
  consumer.on(consumer.events.STOP, () => apply({ kind: 'stopped' }));
  consumer.on(consumer.events.DISCONNECT, () => apply({ kind: 'stopped' }));
  return () => state;
}
