import { Inject, Injectable } from '@nestjs/common';
import type { IngestionConfig } from '@settle/config';
import { BearerKeyGuard } from '@settle/http';
import { CONFIG } from '../tokens.js';

/** Authenticates upstream checkout services (`SETTLE_API_KEY_SHA256`). */
@Injectable()
export class ApiKeyGuard extends BearerKeyGuard {
  constructor(@Inject(CONFIG) config: IngestionConfig) {
    super(config.apiKeySha256);
  }
}

/** Authenticates admins, for manual reconciliation (`SETTLE_ADMIN_API_KEY_SHA256`). */
@Injectable()
export class AdminKeyGuard extends BearerKeyGuard {
  constructor(@Inject(CONFIG) config: IngestionConfig) {
    super(config.adminApiKeySha256);
  }
}
