import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ENTITLEMENT_STATUSES, TRANSACTION_STATUSES } from '@settle/domain';
import { ApiAnswer, ApiProblems, isoTime } from '@settle/http';
import { z } from 'zod';
import type { ConsoleOverview, OverviewService } from '../overview/overview.service.js';
import { SECURITY } from './openapi/document.js';
import { SessionGuard } from './session.guard.js';
import { OVERVIEW } from './tokens.js';

/** A figure read from Kafka: read, not read this time (the brokers did not answer), or not configured. */
const kafkaReading = <T extends z.core.$ZodLooseShape>(figures: T) =>
  z.discriminatedUnion('status', [
    z.strictObject({ status: z.literal('ok'), checkedAt: isoTime, ...figures }),
    z.strictObject({ status: z.literal('unavailable'), code: z.literal('CONSOLE.KAFKA_UNAVAILABLE'), detail: z.string(), checkedAt: isoTime }),
    z.strictObject({ status: z.literal('not_configured') }),
  ]);

/** `GET /api/v1/overview`. */
const overviewAnswer = z.strictObject({
  states: z.record(z.enum(TRANSACTION_STATUSES), z.number().int()).describe('Transactions per state; every state listed, 0 when none'),
  entitlements: z.record(z.enum(ENTITLEMENT_STATUSES), z.number().int()).describe('Transactions per entitlement status'),
  heldInReview: z.number().int().describe('The held-in-review queue: RECOVERING with entitlement HELD_IN_REVIEW'),
  manualReview: z.number().int(),
  stateMismatch: z.number().int(),
  total: z.number().int(),
  deadLetteredDeliveries: z.number().int().describe('Deliveries the dispatcher gave up (state `failed`)'),
  deadLetteredMessages: kafkaReading({
    total: z.number().int(),
    topics: z.array(
      z.strictObject({
        topic: z.string(),
        kind: z.enum(['messages', 'deliveries']),
        records: z.number().int(),
        exists: z.boolean(),
        partitions: z.array(z.strictObject({ partition: z.number().int(), low: z.number().int(), high: z.number().int(), records: z.number().int() })),
      }),
    ),
  }).describe('Records in the dead-letter topics'),
  consumerLag: kafkaReading({
    total: z.number().int(),
    groups: z.array(
      z.strictObject({
        worker: z.string(),
        groupId: z.string(),
        topics: z.array(z.string()),
        state: z.string(),
        members: z.number().int(),
        lag: z.number().int(),
        partitions: z.array(
          z.strictObject({
            topic: z.string(),
            partition: z.number().int(),
            committedOffset: z.number().int().nullable(),
            endOffset: z.number().int(),
            lag: z.number().int(),
          }),
        ),
      }),
    ),
  }).describe("The workers' consumer groups' lag"),
  ledgerChains: z
    .discriminatedUnion('status', [
      z.strictObject({
        status: z.literal('verified'),
        position: z.number().int(),
        globalHash: z.string(),
        verifiedAt: isoTime,
        eventsChecked: z.number().int(),
        lastFullVerificationAt: isoTime.nullable(),
        checkpoints: z
          .discriminatedUnion('status', [
            z.strictObject({
              status: z.literal('checked'),
              checked: z.number().int().describe('Signed checkpoints the verified events agree with'),
              latestSize: z.number().int().nullable().describe('The latest of them covers positions 1 to this size'),
              latestSignedAt: isoTime.nullable().describe('When the latest was signed'),
              keysFrom: z.string().nullable().describe('Whose verifier keys were trusted: LEDGER_CHECKPOINT_KEYS, or the sink’s keys/ folder'),
            }),
            z.strictObject({ status: z.literal('not_checked'), reason: z.string().describe('Why the last verification did not check them') }),
          ])
          .describe('The ledger against the signed checkpoints of the checkpoint sink'),
      }),
      z.strictObject({
        status: z.literal('broken'),
        position: z.number().int(),
        reason: z.string(),
        streamId: z.string().nullable(),
        revision: z.number().int().nullable(),
        checkedAt: isoTime,
        lastVerifiedPosition: z.number().int(),
        againstSignedCheckpoint: z.boolean().describe('Found against a signed checkpoint (position is its size) rather than in the chains'),
      }),
      z.strictObject({ status: z.literal('pending') }),
      z.strictObject({ status: z.literal('not_applicable'), detail: z.string() }),
    ])
    .describe("The ledger's hash chains as the console's own verification last found them"),
});

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
