import { createHash, timingSafeEqual } from 'node:crypto';
import { createParamDecorator, type CanActivate, type ExecutionContext } from '@nestjs/common';
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
    let matched: Buffer | null = null;
    // Every digest is compared, whichever matches: the time taken names none of them.
    for (const digest of this.digests) if (timingSafeEqual(presented, digest)) matched = digest;
    if (!matched) throw new UnauthenticatedProblem('AUTH.INVALID_API_KEY', 'Invalid API key', `${BEARER_CHALLENGE}, error="invalid_token"`);
    (request as KeyedRequest)[API_KEY_ID] = keyIdOf(matched);
    return true;
  }
}

/** Where the guard leaves the id of the key a request presented. */
const API_KEY_ID = Symbol('settle.apiKeyId');
type KeyedRequest = FastifyRequest & { [API_KEY_ID]?: string };

/**
 * The id of an API key: the first 12 hex digits of its SHA-256 digest, the configured value's
 * own prefix (`SETTLE_API_KEY_SHA256`), so an operator can tell which key sent a request without
 * anything that would let it be replayed. Stored with what the key registered.
 */
export function keyIdOf(digest: Buffer): string {
  return digest.toString('hex').slice(0, 12);
}

/**
 * The id ({@link keyIdOf}) of the API key the request presented, as a route handler's parameter;
 * `unknown` on a route no {@link BearerKeyGuard} guards.
 */
export const ApiKeyId = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  return context.switchToHttp().getRequest<KeyedRequest>()[API_KEY_ID] ?? 'unknown';
});
