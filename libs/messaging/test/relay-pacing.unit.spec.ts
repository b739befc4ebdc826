import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OutboxRelay, type AvroCodec } from '@settle/messaging';
import type { Producer } from 'kafkajs';
import type pg from 'pg';

/** A relay whose passes are scripted: each returns what `outbox` holds (up to a batch) and empties it; the times they ran are kept. */
class ScriptedRelay extends OutboxRelay {
  held = 0;
  readonly passes: Array<{ at: number; published: number }> = [];

  constructor(options: ConstructorParameters<typeof OutboxRelay>[5]) {
    super({} as pg.Pool, 'app', {} as Producer, {} as AvroCodec, pino({ level: 'silent' }), options);
  }

  override async pass(): Promise<number> {
    const published = Math.min(this.held, 500);
    this.held -= published;
    this.passes.push({ at: Date.now(), published });
    return published;
  }

  /** A commit that enqueued `rows`, and its wake. */
  commit(rows = 1): void {
    this.held += rows;
    this.wake();
  }
}

describe('the outbox relay’s pacing (libs/messaging/src/outbox.ts)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('backs its fallback poll off while passes find nothing, up to the idle interval, and polls at the busy interval again after a wake', async () => {
    const relay = new ScriptedRelay({ pollIntervalMs: 250, idlePollIntervalMs: 4_000, lingerMs: 5 });
    relay.start();
    await vi.advanceTimersByTimeAsync(20_000);
    // Each empty pass doubles the wait (500, 1 000, 2 000, then 4 000): 8 passes in 20 s instead of 81.
    expect(relay.passes.map((p) => p.at)).toEqual([0, 500, 1_500, 3_500, 7_500, 11_500, 15_500, 19_500]);
    relay.commit();
    await vi.advanceTimersByTimeAsync(0);
    expect(relay.passes.at(-1)).toEqual({ at: 20_000, published: 1 });
    await vi.advanceTimersByTimeAsync(300);
    expect(relay.passes.at(-1)!.at).toBe(20_250);
    await relay.stop();
  });

  it('passes at once on the first wake of an idle outbox, and lingers for company while busy: commits arriving meanwhile share one pass', async () => {
    const relay = new ScriptedRelay({ pollIntervalMs: 250, idlePollIntervalMs: 4_000, lingerMs: 20 });
    relay.start();
    await vi.advanceTimersByTimeAsync(1_000);
    const idlePasses = relay.passes.length;
    relay.commit();
    await vi.advanceTimersByTimeAsync(0);
    expect(relay.passes.slice(idlePasses)).toEqual([{ at: 1_000, published: 1 }]);
    // Busy now: three commits 5 ms apart wait for one another.
    relay.commit();
    await vi.advanceTimersByTimeAsync(5);
    relay.commit();
    await vi.advanceTimersByTimeAsync(5);
    relay.commit();
    await vi.advanceTimersByTimeAsync(20);
    expect(relay.passes.slice(idlePasses)).toEqual([
      { at: 1_000, published: 1 },
      { at: 1_020, published: 3 },
    ]);
    await relay.stop();
  });

  it('with no linger, a wake passes at once however busy', async () => {
    const relay = new ScriptedRelay({ pollIntervalMs: 250, idlePollIntervalMs: 4_000, lingerMs: 0 });
    relay.start();
    await vi.advanceTimersByTimeAsync(0);
    relay.commit();
    await vi.advanceTimersByTimeAsync(0);
    relay.commit();
    await vi.advanceTimersByTimeAsync(0);
    expect(relay.passes.filter((p) => p.published > 0)).toEqual([
      { at: 0, published: 1 },
      { at: 0, published: 1 },
    ]);
    await relay.stop();
  });
});
