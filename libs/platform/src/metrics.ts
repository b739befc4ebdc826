import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A new Prometheus registry for one app, with prom-client's default process metrics collected
 * into it (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `nodejs_eventloop_lag_seconds`, `nodejs_heap_size_used_bytes`, the GC durations ...;
 * `collectDefaultMetrics`). Every app serves one such registry at `GET /metrics`, its own
 * metrics registered into it beside these (docs/observability.md). The event loop's delay is
 * sampled every {@link EVENT_LOOP_MONITORING_PRECISION_MS} (prom-client's default, 10 ms, wakes
 * every app 100 times a second for nothing when idle).
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS });
  return registry;
}

/** The resolution of the event-loop delay histogram (`nodejs_eventloop_lag_*`), milliseconds: delays shorter than this are not seen. */
export const EVENT_LOOP_MONITORING_PRECISION_MS = 100;

/**
 * A measurement taken on a timer rather than at scrape time: gauges read from PostgreSQL (a
 * count of due watches, of transactions in manual review) are refreshed every `intervalMs`,
 * so a scrape never waits on the database and the load stays one query per interval whatever
 * the number of scrapers. Runs never overlap; a run that fails is logged (warn) and the gauges
 * keep their last values until the next one succeeds.
 */
export class PeriodicMeasurement {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  /**
   * @param measure - reads and sets the gauges; may reject.
   * @param intervalMs - milliseconds between the end of one run and the start of the next.
   * @param what - names the measurement in the log line of a failed run.
   */
  constructor(
    private readonly measure: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Measures now, then every interval until {@link stop}. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** One run now (also while stopped), after a run in progress; resolves once it ended, failed runs included. */
  async runOnce(): Promise<void> {
    await this.running;
    this.running = this.measure()
      .catch((error: unknown) => this.logger.warn({ err: error, measurement: this.what }, 'measurement failed; keeping the last values'))
      .finally(() => {
        this.running = null;
      });
    await this.running;
  }

  /** Stops the timer; resolves once a run in progress ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runOnce().then(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.timer.unref();
  }
}
