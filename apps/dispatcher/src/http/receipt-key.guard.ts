import { Inject, Injectable } from '@nestjs/common';
import { BearerKeyGuard } from '@settle/http';
import { RECEIPT_KEYS } from './tokens.js';

/**
 * Authenticates callers of the receipts API (docs/ledger.md, "Receipts"): the merchant's API keys
 * (`SETTLE_API_KEY_SHA256`, the keys its checkout services present to ingestion) and the admin keys
 * (`SETTLE_ADMIN_API_KEY_SHA256`, for support).
 */
@Injectable()
export class ReceiptKeyGuard extends BearerKeyGuard {
  constructor(@Inject(RECEIPT_KEYS) digests: readonly string[]) {
    super(digests);
  }
}
