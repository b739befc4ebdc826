import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { consumerLag, MessagingMetrics, nextOffsetAfter } from '@settle/messaging';

/** The lag series of a registry, as `topic/partition => value` for one group. */
async function lagOf(registry: Registry, group: string): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('settle_consumer_lag_messages')!.get();
  return Object.fromEntries(metric.values.filter((v) => v.labels.consumer_group === group).map((v) => [`${v.labels.topic}/${v.labels.partition}`, v.value]));
}

describe('consumer lag', () => {
  it('is the high watermark minus the next offset to process, never below zero, exact beyond 2^53', () => {
    expect(consumerLag('120', '100')).toBe(20);
    expect(consumerLag('100', '100')).toBe(0);
    expect(consumerLag('99', '100')).toBe(0);
    expect(consumerLag('9007199254740995', '9007199254740993')).toBe(2);
    expect(nextOffsetAfter('41')).toBe('42');
    expect(nextOffsetAfter('9007199254740993')).toBe('9007199254740994');
  });

  it('keeps one series per partition the member owns: a rebalance or a stop removes the others', async () => {
    const registry = new Registry();
    const metrics = new MessagingMetrics(registry);
    metrics.recordLag('g', 't', 0, '50', '40');
    metrics.recordLag('g', 't', 1, '10', '10');
    metrics.recordLag('other', 't', 0, '7', '2');
    expect(await lagOf(registry, 'g')).toEqual({ 't/0': 10, 't/1': 0 });

    metrics.keepAssigned('g', { t: [1] });
    expect(await lagOf(registry, 'g')).toEqual({ 't/1': 0 });
    // A batch of a partition taken away that finishes after the rebalance records nothing.
    metrics.recordLag('g', 't', 0, '60', '55');
    expect(await lagOf(registry, 'g')).toEqual({ 't/1': 0 });

    metrics.forgetGroup('g');
    expect(await lagOf(registry, 'g')).toEqual({});
    expect(await lagOf(registry, 'other')).toEqual({ 't/0': 5 });
  });
});

describe('outbox backlog age', () => {
  it('reports every watched outbox at collection time', async () => {
    const registry = new Registry();
    const metrics = new MessagingMetrics(registry);
    let verifierAge = 0;
    metrics.watchOutbox('verifier', () => verifierAge);
    metrics.watchOutbox('ledger', () => 0);
    verifierAge = 42.5;
    const text = await registry.getSingleMetricAsString('settle_outbox_backlog_age_seconds');
    expect(text).toContain('settle_outbox_backlog_age_seconds{outbox="verifier"} 42.5');
    expect(text).toContain('settle_outbox_backlog_age_seconds{outbox="ledger"} 0');
  });
});
