import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ProblemError, type Pool } from '@settle/platform';
import type { DispatcherMetrics } from '../dispatcher.metrics.js';
import { METRICS, PG_POOL } from './tokens.js';

/** `GET /health` (200 when PostgreSQL answers) and `GET /metrics` (Prometheus). */
@Controller()
export class HealthController {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(METRICS) private readonly metrics: DispatcherMetrics,
  ) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }

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
