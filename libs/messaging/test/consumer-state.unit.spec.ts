import { EventEmitter } from 'node:events';
import { consumerProbe, initialConsumerState, nextConsumerState, trackConsumerState, type ConsumerState, type ConsumerStateEvent } from '@settle/messaging';
import type { Consumer } from 'kafkajs';
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
    // A member the loop stopped stays stopped, whatever arrives late.
    expect(after({ kind: 'stopped', final: true }, { kind: 'joined', assignment: { a: [2] } })).toMatchObject({ phase: 'stopped', partitions: 0 });
    expect(after({ kind: 'stopped', final: true }, { kind: 'crashed', error: 'late' })).toMatchObject({ phase: 'stopped' });
  });

  it("follows kafkajs's own crash: it stops and disconnects first, then crashes, then the restarted consumer joins again", () => {
    const crash: ConsumerStateEvent[] = [
      { kind: 'joined', assignment: { a: [0, 1] } },
      { kind: 'stopped', final: false },
      { kind: 'stopped', final: false },
      { kind: 'crashed', error: 'The group is rebalancing' },
    ];
    expect(after(...crash)).toMatchObject({ phase: 'crashed', error: 'The group is rebalancing' });
    expect(after(...crash, { kind: 'joined', assignment: { a: [1] } })).toMatchObject({ phase: 'joined', partitions: 1 });
  });
});

/** A consumer that emits kafkajs's instrumentation events when told (`emit`), for {@link trackConsumerState}. */
function fakeConsumer(): { consumer: Consumer; emit: (event: string, payload?: unknown) => void } {
  const emitter = new EventEmitter();
  const events = {
    GROUP_JOIN: 'consumer.group_join',
    REBALANCING: 'consumer.rebalancing',
    CRASH: 'consumer.crash',
    STOP: 'consumer.stop',
    DISCONNECT: 'consumer.disconnect',
  };
  const consumer = { events, on: (name: string, listener: (event: unknown) => void) => emitter.on(name, listener) } as unknown as Consumer;
  return { consumer, emit: (event, payload = {}) => emitter.emit(event, { payload }) };
}

describe('trackConsumerState', () => {
  it('is ready again once a consumer kafkajs restarted after a crash joins (STOP and DISCONNECT come before CRASH)', () => {
    const { consumer, emit } = fakeConsumer();
    const state = trackConsumerState(consumer, 'settle-sweeper', () => false);
    emit('consumer.group_join', { memberAssignment: { a: [0, 1] } });
    emit('consumer.stop');
    emit('consumer.disconnect');
    emit('consumer.crash', { error: new Error('Request GroupCoordinator timed out') });
    expect(state()).toMatchObject({ phase: 'crashed', error: 'Request GroupCoordinator timed out' });
    emit('consumer.group_join', { memberAssignment: { a: [0, 1] } });
    expect(state()).toMatchObject({ phase: 'joined', partitions: 2 });
  });

  it('stays stopped once the loop asked to stop', () => {
    const { consumer, emit } = fakeConsumer();
    let stopping = false;
    const state = trackConsumerState(consumer, 'settle-sweeper', () => stopping);
    emit('consumer.group_join', { memberAssignment: { a: [0] } });
    stopping = true;
    emit('consumer.stop');
    emit('consumer.group_join', { memberAssignment: { a: [0] } });
    expect(state()).toMatchObject({ phase: 'stopped', partitions: 0 });
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
    expect(await readiness(after({ kind: 'stopped', final: true }))).toMatchObject({ status: 'down', state: 'stopped' });
  });
});
