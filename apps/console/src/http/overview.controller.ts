import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiProblems } from '@settle/http';
import type { ConsoleOverview, OverviewService } from '../overview/overview.service.js';
import { overviewAnswer } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { SessionGuard } from './session.guard.js';
import { OVERVIEW } from './tokens.js';

/**
 * `GET /api/v1/overview` (any role; docs/console.md, "API"): the counts of the book, the review
 * queues, the dead-lettered deliveries and messages, the workers' consumer lag and the ledger's
 * hash-chain status. The Kafka figures answer `unavailable` rather than failing the page.
 *
 * @throws ReadModelNotReadyError (503 `READ_MODEL.NOT_READY`) while `read_model` or `dispatcher` does not exist yet.
 */
@ApiTags('overview')
@ApiCookieAuth(SECURITY.session)
@Controller('api/v1')
@UseGuards(SessionGuard)
export class OverviewController {
  constructor(@Inject(OVERVIEW) private readonly overviews: OverviewService) {}

  @Get('overview')
  @ApiOperation({
    summary: 'Overview of the book',
    description:
      "Counts per state and entitlement status, the review queues, dead-lettered deliveries and messages, the workers' consumer lag and the ledger's hash-chain status. Kafka figures answer `unavailable` rather than failing the page.",
  })
  @ApiAnswer(200, overviewAnswer, 'The overview')
  @ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'], [503, 'READ_MODEL.NOT_READY'])
  overview(): Promise<ConsoleOverview> {
    return this.overviews.overview();
  }
}
