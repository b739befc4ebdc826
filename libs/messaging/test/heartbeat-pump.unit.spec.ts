import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heartbeatWhileHandling } from '../src/heartbeat-pump.js';

describe('heartbeatWhileHandling', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends a heartbeat every interval until stopped', async () => {
    const heartbeat = vi.fn(async () => undefined);
    const stop = heartbeatWhileHandling(heartbeat, 2_000);
    await vi.advanceTimersByTimeAsync(6_500);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
  });

  it('keeps at most one heartbeat in flight, and a failed one does not stop the next', async () => {
    let release: () => void = () => undefined;
    const heartbeat = vi
      .fn<() => Promise<void>>()
      .mockImplementationOnce(() => new Promise<void>((resolve) => (release = resolve)))
      .mockRejectedValueOnce(new Error('The group is rebalancing'))
      .mockResolvedValue(undefined);
    const stop = heartbeatWhileHandling(heartbeat, 1_000);
    await vi.advanceTimersByTimeAsync(3_500);
    expect(heartbeat).toHaveBeenCalledTimes(1); // the first is still in flight
    release();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(heartbeat).toHaveBeenCalledTimes(2); // rejects
    await vi.advanceTimersByTimeAsync(1_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    stop();
  });
});
