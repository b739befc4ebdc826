import { consumerProbe, initialConsumerState, nextConsumerState, type ConsumerState, type ConsumerStateEvent } from '@settle/messaging';
import { HealthProbes } from '@settle/platform';
import { describe, expect, it } from 'vitest';

/** The state after a sequence of events, from a member that has not joined yet. */
const after = (...events: ConsumerStateEvent[]): ConsumerState =>
  events.reduce((state, event, i) => nextConsumerState(state, event, i + 1), initialConsumerState('settle-verifier', 0));

/** The readiness of a consumer loop in that state. */
const readiness = async (state: ConsumerState) =>
  (await new HealthProbes([consumerProbe({ groupId: state.groupId, state: () => state })]).report()).details['consumer:settle-verifier'];

describe('a consumer-group member’s state', () => {
  it('follows joins, rebalances, crashes and stops', () => {
    expect(after()).toMatchObject({ phase: 'connecting', partitions: 0 });
    expect(after({ kind: 'joined', assignment: { a: [0, 3], b: [1] } })).toMatchObject({ phase: 'joined', partitions: 3, assignment: { a: [0, 3], b: [1] } });
    expect(after({ kind: 'joined', assignment: { a: [0] } }, { kind: 'rebalancing' })).toMatchObject({ phase: 'rebalancing', partitions: 0, assignment: {} });
    expect(after({ kind: 'joined', assignment: { a: [0] } }, { kind: 'crashed', error: 'broker gone' })).toMatchObject({
      phase: 'crashed',
      error: 'broker gone',
    });
    // kafkajs restarts a crashed consumer, which joins again.
    expect(after({ kind: 'crashed', error: 'x' }, { kind: 'joined', assignment: { a: [2] } })).toMatchObject({ phase: 'joined', partitions: 1 });
    // A stopped member stays stopped, whatever arrives late.
    expect(after({ kind: 'stopped' }, { kind: 'joined', assignment: { a: [2] } })).toMatchObject({ phase: 'stopped', partitions: 0 });
  });
});

describe('a consumer loop’s readiness', () => {
  it('is up once joined, with its partitions; a member holding none is up too, as a standby', async () => {
    expect(await readiness(after({ kind: 'joined', assignment: { a: [0, 1] } }))).toMatchObject({
      status: 'up',
      groupId: 'settle-verifier',
      state: 'joined',
      partitions: 2,
      assignment: { a: [0, 1] },
    });
    const standby = await readiness(after({ kind: 'joined', assignment: {} }));
    expect(standby).toMatchObject({ status: 'up', partitions: 0, standby: true });
  });

  it('is up while the group rebalances, down while connecting, after a crash and once stopped', async () => {
    expect(await readiness(after({ kind: 'joined', assignment: { a: [0] } }, { kind: 'rebalancing' }))).toMatchObject({ status: 'up', state: 'rebalancing' });
    expect(await readiness(after())).toMatchObject({ status: 'down', state: 'connecting', message: 'not yet a member of its consumer group' });
    expect(await readiness(after({ kind: 'crashed', error: 'broker gone' }))).toMatchObject({
      status: 'down',
      state: 'crashed',
      message: 'crashed: broker gone',
    });
    expect(await readiness(after({ kind: 'stopped' }))).toMatchObject({ status: 'down', state: 'stopped' });
  });
});
