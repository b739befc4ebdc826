import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { IngestionConfig } from '@settle/config';
import { ProblemError } from '@settle/platform';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '../tokens.js';

/**
 * Authenticates upstream checkout services: `Authorization: Bearer <api key>`. Only SHA-256
 * digests of the keys are configured; the presented key is hashed and compared in constant
 * time with every configured digest.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly digests: Buffer[];

  constructor(@Inject(CONFIG) config: IngestionConfig) {
    this.digests = config.apiKeySha256.map((hex) => Buffer.from(hex, 'hex')).filter((b) => b.length === 32);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new ProblemError(401, 'AUTH.MISSING_API_KEY', 'Missing API key', 'Send Authorization: Bearer <api key>');
    const presented = createHash('sha256').update(match[1]!, 'utf8').digest();
    let ok = false;
    for (const digest of this.digests) ok = timingSafeEqual(presented, digest) || ok;
    if (!ok) throw new ProblemError(401, 'AUTH.INVALID_API_KEY', 'Invalid API key');
    return true;
  }
}
