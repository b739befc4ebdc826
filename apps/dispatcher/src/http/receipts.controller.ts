import { Controller, Get, Inject, Param, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { PostgresReceiptProofs, ReceiptProofBody } from '@settle/ledger';
import { ApiAnswer, ApiProblems } from '@settle/http';
import type { FastifyReply } from 'fastify';
import { DispatcherError } from '../errors.js';
import { receiptProofAnswer } from './openapi/answers.js';
import { SECURITY } from './openapi/document.js';
import { ReceiptKeyGuard } from './receipt-key.guard.js';
import { RECEIPT_PROOFS } from './tokens.js';

/** How long a caller waits before asking again for an event no checkpoint covers yet, seconds: the checkpoints' default interval. */
export const RECEIPT_RETRY_AFTER_SECONDS = 60;

/**
 * Receipts (docs/ledger.md, "Receipts"): `GET /v1/receipts/{event_id}/proof` answers, for an
 * entitlement event Settle delivered, the latest signed checkpoint of the ledger and the inclusion
 * proof of the event in the tree that checkpoint signed, which the receiver kit's `verifyReceipt`
 * checks offline with the published public key. 404 `RECEIPT.NOT_COVERED_YET` (with `Retry-After`)
 * until a checkpoint covers it; 404 `RECEIPT.UNKNOWN_EVENT` for an id that is no delivered event.
 */
@ApiTags('receipts')
@ApiBearerAuth(SECURITY.apiKey)
@ApiProblems([401, 'AUTH.MISSING_API_KEY'], [401, 'AUTH.INVALID_API_KEY'], [503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/receipts')
@UseGuards(ReceiptKeyGuard)
export class ReceiptsController {
  constructor(@Inject(RECEIPT_PROOFS) private readonly proofs: Pick<PostgresReceiptProofs, 'proofFor'>) {}

  @Get(':eventId/proof')
  @ApiOperation({
    summary: "A delivered event's proof",
    description:
      "The latest signed checkpoint of the ledger and the event's inclusion proof in it: with the receipt delivered in the event's body (`receipt`) and Settle's published public key, it proves offline that this event is in the ledger Settle signed.",
  })
  @ApiParam({ name: 'eventId', description: "The delivered event's `event_id` (UUID)" })
  @ApiAnswer(200, receiptProofAnswer, 'The proof')
  @ApiProblems([404, 'RECEIPT.UNKNOWN_EVENT'], [404, 'RECEIPT.NOT_COVERED_YET'])
  async proof(@Param('eventId') eventId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<ReceiptProofBody> {
    const answer = await this.proofs.proofFor(eventId);
    if (answer.status === 'unknown') throw new DispatcherError('RECEIPT.UNKNOWN_EVENT', 'No entitlement event delivered by Settle has this id');
    if (answer.status === 'not_covered') {
      void reply.header('retry-after', String(RECEIPT_RETRY_AFTER_SECONDS));
      throw new DispatcherError('RECEIPT.NOT_COVERED_YET', `The event is at ledger position ${answer.position}; the next signed checkpoint covers it`);
    }
    return answer.proof;
  }
}
