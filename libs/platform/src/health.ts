import type { Logger } from 'pino';
import type { Pool } from './db.js';
import { problemDetails, type ProblemDetails } from './problem.js';

/**
 * Health answers in the shape of `@nestjs/terminus` (its `HealthCheckResult`): every app, the
 * workers' metrics port included, runs its probes through terminus's `HealthCheckService`
 * (`HealthModule`, @settle/http); {@link healthReport} aggregates as terminus does, for the
 * probes' own report. The probes themselves are framework-free: bounded in time, cached, and
 * logged when they change.
 */

/** A dependency's status: `degraded` still serves (200), `down` does not (503). */
export type HealthStatus = 'up' | 'degraded' | 'down';

/** One dependency's answer, terminus's `HealthIndicatorResult`: `{ [key]: { status, ...details } }`. */
export type HealthIndicatorResult = Record<string, { status: HealthStatus } & Record<string, unknown>>;

/**
 * A health answer, terminus's `HealthCheckResult`: `status` is `ok` (everything up), `degraded`
 * (something degraded, nothing down) or `error` (something down); `info` holds the dependencies
 * up or degraded, `error` those down, `details` all of them.
 */
export interface HealthReport {
  status: 'ok' | 'degraded' | 'error' | 'shutting_down';
  info: HealthIndicatorResult;
  error: HealthIndicatorResult;
  details: HealthIndicatorResult;
}

/** Default bound of one check, milliseconds: the probes' answers stay under a kubelet's time-out. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 2_000;

/** How long a remote dependency's answer is reused by default, milliseconds (Kafka, the registry, the event store). */
export const DEFAULT_HEALTH_CACHE_MS = 5_000;

/** One dependency an app's readiness reflects. */
export interface HealthProbe {
  /** Key in the answer's `info`, `error` and `details` (`postgres`, `kafka`, `schema_registry`, `event_store`, `consumer:<group>`). */
  readonly key: string;
  /**
   * What a failed check makes the dependency: `down` (the app is not ready: 503) or `degraded`
   * (it still serves: 200, status `degraded`), for a dependency the app rides out (ingestion's
   * outbox holds events while Kafka is away).
   */
  readonly whenFailing: 'down' | 'degraded';
  /** Longest the check may take, milliseconds; past it the check fails with "timeout of N ms exceeded". */
  readonly timeoutMs: number;
  /** How long an answer (good or bad) is reused, milliseconds; 0: every request checks. */
  readonly cacheMs: number;
  /**
   * Checks the dependency: resolves with details to report (never a secret), rejects when it
   * fails (the error's message is reported; a {@link HealthCheckFailure} adds details).
   *
   * @param signal - aborted at the time-out: stop waiting.
   */
  check(signal: AbortSignal): Promise<Record<string, unknown> | void>;
  /** Releases what the probe holds (a Kafka admin client). */
  close?(): Promise<void>;
}

/** A failed check that reports details beside its message (a consumer's group and state). */
export class HealthCheckFailure extends Error {
  /**
   * @param message - why the check failed, reported as the dependency's `message`; never a secret.
   * @param details - reported beside it (never a secret).
   */
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HealthCheckFailure';
  }
}

interface Cached {
  result: Promise<HealthIndicatorResult[string]>;
  expiresAt: number;
  /** Whether the check finished (a request that shares one in flight gets a fresh answer, not a cached one). */
  settled: boolean;
}

/**
 * Runs an app's {@link HealthProbe}s: each check bounded by its `timeoutMs`, its answer reused for
 * `cacheMs` (concurrent requests share one check in flight), reported in terminus's indicator
 * shape with `responseTime` (milliseconds) and `cachedResponse: true` when reused, as terminus's
 * own `HealthIndicatorService.attempt().withTimeout().cacheFor()` does. A dependency that turns
 * failing is logged once at `warn`, and once at `info` when it answers again.
 */
export class HealthProbes {
  private readonly cache = new Map<string, Cached>();
  private readonly failing = new Set<string>();

  private readonly probes: () => readonly HealthProbe[];

  /**
   * @param probes - the probes, or a function giving them at each check (a worker adds its
   *   consumers once they start).
   * @param logger - where changes are logged.
   * @param now - monotonic clock, milliseconds.
   */
  constructor(
    probes: readonly HealthProbe[] | (() => readonly HealthProbe[]),
    private readonly logger?: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.probes = typeof probes === 'function' ? probes : () => probes;
  }

  /** Every probe's answer, checked in parallel; never rejects. */
  async indicators(): Promise<HealthIndicatorResult[]> {
    return Promise.all(this.probes().map((probe) => this.indicator(probe)));
  }

  /** One check per probe, for terminus's `HealthCheckService.check` (each never rejects). */
  checks(): Array<() => Promise<HealthIndicatorResult>> {
    return this.probes().map((probe) => () => this.indicator(probe));
  }

  /** The readiness answer: {@link indicators} aggregated by {@link healthReport}. */
  async report(): Promise<HealthReport> {
    return healthReport(await this.indicators());
  }

  /** One probe's answer (see the class). */
  async indicator(probe: HealthProbe): Promise<HealthIndicatorResult> {
    const cached = this.cache.get(probe.key);
    if (cached && cached.expiresAt > this.now()) {
      const reused = cached.settled;
      const result = await cached.result;
      return { [probe.key]: reused ? { ...result, cachedResponse: true } : result };
    }
    const entry: Cached = { result: this.run(probe), expiresAt: Number.POSITIVE_INFINITY, settled: false };
    if (probe.cacheMs > 0) this.cache.set(probe.key, entry);
    const result = await entry.result;
    entry.expiresAt = this.now() + probe.cacheMs;
    entry.settled = true;
    return { [probe.key]: result };
  }

  /** Closes every probe that holds a connection; failures are ignored (the app is stopping). */
  async close(): Promise<void> {
    await Promise.allSettled(this.probes().map(async (probe) => probe.close?.()));
  }

  private async run(probe: HealthProbe): Promise<HealthIndicatorResult[string]> {
    const started = this.now();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`timeout of ${probe.timeoutMs}ms exceeded`));
      }, probe.timeoutMs);
    });
    try {
      const details = (await Promise.race([probe.check(controller.signal), timeout])) ?? {};
      this.changed(probe, null);
      return { ...details, status: 'up', responseTime: Math.round(this.now() - started) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.changed(probe, message);
      const details = error instanceof HealthCheckFailure ? error.details : {};
      return { ...details, status: probe.whenFailing, message, responseTime: Math.round(this.now() - started) };
    } finally {
      clearTimeout(timer);
    }
  }

  private changed(probe: HealthProbe, failure: string | null): void {
    if (failure !== null && !this.failing.has(probe.key)) {
      this.failing.add(probe.key);
      this.logger?.warn({ dependency: probe.key, status: probe.whenFailing, reason: failure }, 'health check failing');
    } else if (failure === null && this.failing.delete(probe.key)) {
      this.logger?.info({ dependency: probe.key }, 'health check answers again');
    }
  }
}

/**
 * Aggregates indicator answers as terminus's `HealthCheckExecutor` does: `up` and `degraded`
 * into `info`, `down` into `error`, everything into `details`; `status` is `error` when
 * something is down, else `degraded` when something is degraded, else `ok`.
 */
export function healthReport(results: readonly HealthIndicatorResult[]): HealthReport {
  const info: HealthIndicatorResult = {};
  const error: HealthIndicatorResult = {};
  for (const result of results) {
    for (const [key, value] of Object.entries(result)) (value.status === 'down' ? error : info)[key] = value;
  }
  const details = { ...info, ...error };
  const status = Object.keys(error).length > 0 ? 'error' : Object.values(info).some((v) => v.status === 'degraded') ? 'degraded' : 'ok';
  return { status, info, error, details };
}

/** Stable code of a readiness answer with a dependency down (docs/errors.md). */
export const NOT_READY_CODE = 'HEALTH.NOT_READY';

/** A 503 readiness answer: RFC 9457 problem details with terminus's `info`, `error` and `details` as extension members. */
export type NotReadyProblem = ProblemDetails & Pick<HealthReport, 'info' | 'error' | 'details'>;

/**
 * The body of a readiness answer when a dependency is down (503, `application/problem+json`,
 * `Retry-After: 5`): problem details with code {@link NOT_READY_CODE}, the failing dependencies
 * named in `detail`, and terminus's `info`, `error` and `details` as extension members, so a
 * client reads `details.<dependency>.status` the same in a 200 and a 503. (Terminus's own
 * `status: "error"` is not kept: the problem's `status` is the HTTP status, 503.)
 *
 * @param instance - the request's path.
 */
export function notReadyProblem(report: HealthReport, instance?: string): NotReadyProblem {
  const down = Object.keys(report.error);
  return {
    ...problemDetails({
      status: 503,
      code: NOT_READY_CODE,
      title: 'Not ready',
      detail: down.length > 0 ? `Not ready: ${down.join(', ')} down` : 'Not ready: shutting down',
      instance,
    }),
    info: report.info,
    error: report.error,
    details: report.details,
  };
}

/**
 * PostgreSQL reachable through the app's pool: `SELECT 1`, checked on every request (no cache:
 * it is the app's own database and cheap), `down` when it fails or takes longer than
 * `timeoutMs` (a pool whose connections are all busy that long counts as down).
 */
export function postgresProbe(pool: Pool, options: { timeoutMs?: number } = {}): HealthProbe {
  return {
    key: 'postgres',
    whenFailing: 'down',
    timeoutMs: options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    cacheMs: 0,
    check: async () => {
      await pool.query('SELECT 1');
    },
  };
}
