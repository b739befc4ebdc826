/**
 * The shared app runtime's lifecycle through Nest, without infrastructure (an app without a
 * database, as the provider sandbox): the app's own shutdown hooks run before the runtime's steps,
 * which run in the order added, then tracing; a failed step does not stop the others; a shutdown
 * that overruns `SHUTDOWN_TIMEOUT_MS` exits with status 1 naming the step still running.
 */
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createLogger, createMetricsRegistry } from '@settle/platform';
import { AppRuntime, type AppConfig } from '@settle/runtime';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';

const order: string[] = [];

@Injectable()
class AppService implements OnApplicationShutdown {
  onApplicationShutdown() {
    order.push('app hook');
  }
}

@Module({ providers: [AppService] })
class AppModule {}

/** A runtime over an app without a database, its log lines kept. */
function runtimeFor(config: Partial<AppConfig> = {}, ownsProcess = false, exit?: (code: number) => void) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('runtime-unit', 'info', sink);
  const runtime = new AppRuntime(
    {
      name: 'runtime-unit',
      config: { logLevel: 'info', readyFile: undefined, shutdownTimeoutMs: 10_000, ...config },
      logger,
      metrics: createMetricsRegistry(),
      pool: null,
      stopTracing: async () => void order.push('tracing'),
    },
    { ownsProcess, ...(exit ? { exit } : {}) },
  );
  return { runtime, lines };
}

describe('the app runtime', () => {
  it('runs the app’s shutdown hooks first, then its own steps in the order added, then tracing; a failed step exits with status 1', async () => {
    order.length = 0;
    const exits: number[] = [];
    const signalListeners = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
    const { runtime, lines } = runtimeFor({}, true, (code) => void exits.push(code));
    runtime.onStop(
      { name: 'relay', stop: () => void order.push('relay') },
      {
        name: 'producer',
        stop: () => {
          order.push('producer');
          throw new Error('broker gone');
        },
      },
      { name: 'probes', stop: () => void order.push('probes') },
    );
    const testing = await Test.createTestingModule({ imports: [AppModule, runtime.module()] }).compile();
    await testing.init();
    await testing.close();
    // A failed step is logged; the steps after it still run; then the process ends with status 1.
    expect(order).toEqual(['app hook', 'relay', 'producer', 'probes', 'tracing']);
    expect(lines.map((l) => l.msg)).toEqual(['shutting down', 'shutdown step failed; continuing with the next', 'shutdown failed']);
    expect(lines[1]).toMatchObject({ step: 'producer', err: { message: 'broker gone' } });
    expect(exits).toEqual([1]);
    forgetSignalHandlersBut(signalListeners);
  });

  it('logs how long a clean shutdown took, and leaves the process to Nest', async () => {
    const exits: number[] = [];
    const signalListeners = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
    const { runtime, lines } = runtimeFor({}, true, (code) => void exits.push(code));
    const testing = await Test.createTestingModule({ imports: [runtime.module()] }).compile();
    await testing.init();
    await testing.close();
    expect(lines.map((l) => l.msg)).toEqual(['shutting down', 'shut down']);
    expect(lines[1]).toMatchObject({ durationMs: expect.any(Number) });
    expect(exits).toEqual([]);
    forgetSignalHandlersBut(signalListeners);
  });

  it('refuses to hand out a pool it does not have', () => {
    const { runtime } = runtimeFor();
    expect(() => runtime.pool).toThrow('runtime-unit has no database');
  });

  it('exits with status 1 when the shutdown overruns SHUTDOWN_TIMEOUT_MS, naming the step still running', async () => {
    const exits: number[] = [];
    const { runtime, lines } = runtimeFor({ shutdownTimeoutMs: 50 }, true, (code) => void exits.push(code));
    let release: () => void = () => undefined;
    runtime.onStop({ name: 'stuck relay', stop: () => new Promise<void>((resolve) => (release = resolve)) });
    const signalListeners = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
    const testing = await Test.createTestingModule({ imports: [runtime.module()] }).compile();
    await testing.init();
    const closing = testing.close();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(exits).toEqual([1]);
    expect(lines.find((l) => l.msg === 'shutdown did not finish within SHUTDOWN_TIMEOUT_MS; exiting with status 1')).toMatchObject({
      step: 'stuck relay',
      timeoutMs: 50,
    });
    release();
    await closing;
    forgetSignalHandlersBut(signalListeners);
  });
});

/** Removes the second-signal handlers a shutdown installed (the runtime owned the process). */
function forgetSignalHandlersBut(kept: ReadonlySet<unknown>): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const listener of process.listeners(signal)) if (!kept.has(listener)) process.removeListener(signal, listener);
  }
}
