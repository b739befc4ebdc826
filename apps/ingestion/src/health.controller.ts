import { Controller, Get, Inject } from '@nestjs/common';
import { ProblemError, type Pool } from '@settle/platform';
import { PG_POOL } from './tokens.js';

/** Liveness and readiness: answers 200 when PostgreSQL answers. */
@Controller('health')
export class HealthController {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  @Get()
  async health(): Promise<{ status: 'ok' }> {
    try {
      await this.pool.query('SELECT 1');
    } catch {
      throw new ProblemError(503, 'HEALTH.DATABASE_DOWN', 'Database unavailable');
    }
    return { status: 'ok' };
  }
}
