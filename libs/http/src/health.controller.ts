import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ProblemError, type Pool } from '@settle/platform';
import type { Registry } from 'prom-client';

/** Injection token of the PostgreSQL pool `GET /health` checks. */
export const HEALTH_POOL = Symbol('HealthPool');
/** Injection token of the Prometheus registry `GET /metrics` serves. */
export const METRICS_REGISTRY = Symbol('MetricsRegistry');

/**
 * Liveness and readiness of a NestJS app (`GET /health`: 200 `{ status: 'ok' }` when PostgreSQL
 * answers, 503 `HEALTH.DATABASE_DOWN` otherwise) and its Prometheus metrics (`GET /metrics`).
 * The app provides {@link HEALTH_POOL} and {@link METRICS_REGISTRY}.
 */
@Controller()
export class HealthController {
  constructor(
    @Inject(HEALTH_POOL) private readonly pool: Pool,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  async metricsText(): Promise<string> {
    return this.registry.metrics();
  }

  /** @throws ProblemError 503 `HEALTH.DATABASE_DOWN` when PostgreSQL does not answer. */
  @Get('health')
  async health(): Promise<{ status: 'ok' }> {
    try {
      await this.pool.query('SELECT 1');
    } catch {
      throw new ProblemError(503, 'HEALTH.DATABASE_DOWN', 'Database unavailable');
    }
    return { status: 'ok' };
  }
}
