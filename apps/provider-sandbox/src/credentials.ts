import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '@settle/config';

/**
 * Constant-time equality of a presented credential and a configured secret. Both sides are
 * hashed first so neither the comparison time nor an early length check tells a caller
 * anything about the secret.
 */
export function secretEquals(presented: string | undefined | null, expected: Secret | string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  const want = typeof expected === 'string' ? expected : expected.reveal();
  const same = timingSafeEqual(digest(presented ?? ''), digest(want));
  return same && presented !== undefined && presented !== null;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? null;
}

/** Constant-time check of `Authorization: Bearer <secret key>`. */
export function bearerMatches(header: string | undefined, secretKey: Secret): boolean {
  return secretEquals(bearerToken(header), secretKey);
}

/** The user and password of an `Authorization: Basic base64(user:password)` header, or null. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '')?.[1];
  if (!encoded) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
