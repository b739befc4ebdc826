import { createHash, timingSafeEqual } from 'node:crypto';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BEARER_CHALLENGE, UnauthenticatedProblem } from './problem-details.filter.js';

/**
 * `Authorization: Bearer <key>` against configured SHA-256 digests: the presented key is hashed
 * and compared in constant time with every digest (keys themselves are never configured).
 * Subclasses name the digests they accept (the checkout API's keys, the admin keys).
 *
 * @throws UnauthenticatedProblem 401 `AUTH.MISSING_API_KEY` (`WWW-Authenticate: Bearer realm="settle"`)
 *   or `AUTH.INVALID_API_KEY` (the same with `error="invalid_token"`, RFC 6750, section 3.1).
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
    if (!match) throw new UnauthenticatedProblem('AUTH.MISSING_API_KEY', 'Missing API key', BEARER_CHALLENGE, 'Send Authorization: Bearer <api key>');
    const presented = createHash('sha256').update(match[1]!, 'utf8').digest();
    let ok = false;
    for (const digest of this.digests) ok = timingSafeEqual(presented, digest) || ok;
    if (!ok) throw new UnauthenticatedProblem('AUTH.INVALID_API_KEY', 'Invalid API key', `${BEARER_CHALLENGE}, error="invalid_token"`);
    return true;
  }
}
