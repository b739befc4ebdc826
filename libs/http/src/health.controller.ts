import { Controller, Get, Header, Inject, Module, Req, Res, ServiceUnavailableException, type DynamicModule } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule, type HealthCheckResult } from '@nestjs/terminus';
import { HealthProbes, notReadyProblem, PROBLEM_JSON, type HealthReport, type NotReadyProblem } from '@settle/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';

/** Injection token of the app's readiness probes (`HealthProbes`, @settle/platform). */
export const HEALTH_PROBES = Symbol('HealthProbes');
/** Injection token of the Prometheus registry `GET /metrics` serves. */
export const METRICS_REGISTRY = Symbol('MetricsRegistry');

/** The app's Prometheus metrics at `GET /metrics` (the app provides {@link METRICS_REGISTRY}). */
@Controller()
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  async metricsText(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * Liveness and readiness of a NestJS app, with `@nestjs/terminus` (docs/observability.md,
 * "Health"), answers in terminus's shape (`status`, `info`, `error`, `details`), never cached:
 * - `GET /health/live`: 200 while the process answers; no dependency is checked.
 * - `GET /health/ready`: the app's probes ({@link HEALTH_PROBES}: PostgreSQL, Kafka, the schema
 *   registry, a worker's consumer group...), each bounded and cached as the probe says; 200 when
 *   none is down (`status` `ok`, or `degraded` when a dependency the app rides out is failing),
 *   else 503 RFC 9457 problem details `HEALTH.NOT_READY` with terminus's `info`, `error` and
 *   `details` as extension members (`notReadyProblem`) and `Retry-After: 5`.
 * - `GET /health`: the same as `/health/ready`, for the callers from before the split.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    @Inject(HEALTH_PROBES) private readonly probes: HealthProbes,
  ) {}

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** @returns terminus's result, or (status 503) the not-ready problem; never throws for a dependency. */
  @Get(['', 'ready'])
  @HealthCheck()
  async ready(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<HealthCheckResult | NotReadyProblem> {
    try {
      return await this.health.check(this.probes.checks());
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // Answered here rather than through the exception filter: a pod not ready is an expected,
      // repeated answer, logged once per change by the probes, not an error per request.
      void reply.status(503).header('content-type', PROBLEM_JSON).header('retry-after', '5');
      return notReadyProblem(error.getResponse() as HealthReport, request.url.split('?')[0]);
    }
  }
}

/** What {@link HealthModule} serves. */
export interface HealthModuleOptions {
  /** The readiness probes; an app with no dependency (the provider sandbox) gives none. */
  probes: HealthProbes;
  /** The registry of `GET /metrics`; none: no metrics route. */
  metrics?: Registry;
}

/**
 * The health routes ({@link HealthController}) on terminus (its own logger off: the probes log a
 * dependency's changes once), and `GET /metrics` ({@link MetricsController}) when a registry is
 * given. Every Settle Nest app imports it once.
 */
@Module({})
export class HealthModule {
  static forRoot(options: HealthModuleOptions): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: options.metrics ? [HealthController, MetricsController] : [HealthController],
      providers: [{ provide: HEALTH_PROBES, useValue: options.probes }, ...(options.metrics ? [{ provide: METRICS_REGISTRY, useValue: options.metrics }] : [])],
    };
  }
}
