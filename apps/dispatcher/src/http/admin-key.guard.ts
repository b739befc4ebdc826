import { Inject, Injectable } from '@nestjs/common';
import { BearerKeyGuard } from '@settle/http';
import { ADMIN_KEYS } from './tokens.js';

/** Authenticates admins (`SETTLE_ADMIN_API_KEY_SHA256`, the same admin keys as ingestion's admin API). */
@Injectable()
export class AdminKeyGuard extends BearerKeyGuard {
  constructor(@Inject(ADMIN_KEYS) digests: readonly string[]) {
    super(digests);
  }
}
