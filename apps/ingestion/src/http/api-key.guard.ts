import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { IngestionConfig } from '@settle/config';
import { ProblemError } from '@settle/platform';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '../tokens.js';

/**
 * `Authorization: Bearer <key>` against configured SHA-256 digests: the presented key is hashed
 * and compared in constant time with every digest (keys themselves are never configured).
 *
 * @throws ProblemError 401 `AUTH.MISSING_API_KEY` or `AUTH.INVALID_API_KEY`.
 */
abstract class BearerKeyGuard implements CanActivate {
  private readonly digests: Buffer[];

  protected constructor(hexDigests: readonly string[]) {
    this.digests = hexDigests.map((hex) => Buffer.from(hex, 'hex')).filter((b) => b.length === 32);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match) throw new ProblemError(401, 'AUTH.MISSING_API_KEY', 'Missing API key', 'Send Authorization: Bearer <api key>');
    const presented = createHash('sha256').update(match[1]!, 'utf8').digest();
    let ok = false;
    for (const digest of this.digests) ok = timingSafeEqual(presented, digest) || ok;
    if (!ok) throw new ProblemError(401, 'AUTH.INVALID_API_KEY', 'Invalid API key');
    return true;
  }
}

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
