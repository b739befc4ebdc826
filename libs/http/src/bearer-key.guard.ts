import { createHash, timingSafeEqual } from 'node:crypto';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { ProblemError } from '@settle/platform';
import type { FastifyRequest } from 'fastify';

/**
 * `Authorization: Bearer <key>` against configured SHA-256 digests: the presented key is hashed
 * and compared in constant time with every digest (keys themselves are never configured).
 * Subclasses name the digests they accept (the checkout API's keys, the admin keys).
 *
 * @throws ProblemError 401 `AUTH.MISSING_API_KEY` or `AUTH.INVALID_API_KEY`.
 */
export abstract class BearerKeyGuard implements CanActivate {
  private readonly digests: Buffer[];

  /** @param hexDigests - lower-case hex SHA-256 digests of the accepted keys; malformed ones are ignored. */
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
