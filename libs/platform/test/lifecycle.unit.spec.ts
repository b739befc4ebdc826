import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { shutdownHandler, stopInOrder, stopWithin, type ShutdownProgress } from '@settle/platform';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A logger whose JSON lines are kept, to assert on what the shutdown said. */
function recordingLogger(): { logger: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ base: { app: 'lifecycle-unit' } }, stream), lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** The exit codes a handler asked for, and a promise of the first. */
function exits(): { codes: number[]; exit: (code: number) => void; first: Promise<number> } {
  const codes: number[] = [];
  let resolve: (code: number) => void = () => undefined;
  const first = new Promise<number>((r) => (resolve = r));
  return {
    codes,
    exit: (code) => {
      codes.push(code);
      resolve(code);
    },
    first,
  };
}

describe('stopWithin', () => {
  it('reports a stop that finished in time, with how long it took in milliseconds', async () => {
    const outcome = await stopWithin(() => sleep(30), 1_000);
    expect(outcome.kind).toBe('stopped');
    expect(outcome.kind === 'stopped' && outcome.durationMs).toBeGreaterThanOrEqual(25);
  });

  it('reports a stop that failed, with its error', async () => {
    const error = new Error('pool would not end');
    await expect(stopWithin(() => Promise.reject(error), 1_000)).resolves.toMatchObject({ kind: 'failed', error });
  });

  it('reports a stop that overran its bound without waiting for it', async () => {
    const started = Date.now();
    await expect(stopWithin(() => sleep(5_000), 50)).resolves.toEqual({ kind: 'timed-out', timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('the shutdown handler (SIGTERM, SIGINT)', () => {
  it('stops once, logs how long it took and exits 0', async () => {
    const { logger, lines } = recordingLogger();
    const { codes, exit, first } = exits();
    let stops = 0;
    const handler = shutdownHandler(
      logger,
      async () => {
        stops += 1;
        await sleep(20);
      },
      { timeoutMs: 1_000, exit },
    );
    handler('SIGTERM');
    expect(await first).toBe(0);
    expect(stops).toBe(1);
    expect(codes).toEqual([0]);
    expect(lines().map((l) => l.msg)).toEqual(['shutting down', 'shut down']);
    expect(lines()[0]).toMatchObject({ signal: 'SIGTERM', timeoutMs: 1_000 });
    expect(lines()[1]!.durationMs).toEqual(expect.any(Number));
  });

  it('exits 1 with a log line naming the bound and the step still running when the stop overruns it', async () => {
    const { logger, lines } = recordingLogger();
    const { exit, first } = exits();
    const handler = shutdownHandler(
      logger,
      (progress: ShutdownProgress) =>
        stopInOrder(
          [
            { name: 'consumer loops', stop: () => sleep(1) },
            { name: 'outbox relay verifier', stop: () => sleep(10_000) },
            { name: 'database pool', stop: () => undefined },
          ],
          logger,
          progress,
        ),
      { timeoutMs: 100, exit },
    );
    handler('SIGTERM');
    expect(await first).toBe(1);
    const overrun = lines().at(-1)!;
    expect(overrun).toMatchObject({ level: 50, timeoutMs: 100, step: 'outbox relay verifier' });
    expect(overrun.msg).toMatch(/did not finish within SHUTDOWN_TIMEOUT_MS/);
  });

  it('exits 1 when a step failed, after running the others', async () => {
    const { logger, lines } = recordingLogger();
    const { exit, first } = exits();
    const ran: string[] = [];
    const handler = shutdownHandler(
      logger,
      (progress) =>
        stopInOrder(
          [
            { name: 'http server', stop: () => Promise.reject(new Error('close failed')) },
            { name: 'database pool', stop: () => void ran.push('database pool') },
          ],
          logger,
          progress,
        ),
      { timeoutMs: 1_000, exit },
    );
    handler('SIGINT');
    expect(await first).toBe(1);
    expect(ran).toEqual(['database pool']);
    expect(lines().at(-1)).toMatchObject({ msg: 'shutdown failed' });
  });

  it('exits 1 at once on a second signal while stopping', async () => {
    const { logger } = recordingLogger();
    const { codes, exit } = exits();
    const handler = shutdownHandler(logger, () => sleep(10_000), { timeoutMs: 20_000, exit });
    handler('SIGTERM');
    handler('SIGTERM');
    expect(codes).toEqual([1]);
  });
});
