import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** Bytes of randomness of a session token and of a CSRF token. */
export const TOKEN_BYTES = 32;

/** A fresh random token: {@link TOKEN_BYTES} bytes from the system's CSPRNG, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The SHA-256 (lower-case hex) of a session token: what the database keeps as the session's id. */
export function sessionIdOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether a presented token equals the expected one, in time independent of where they differ
 * (both are hashed first, so their lengths never leak either).
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Hashes a password with argon2id (`@node-rs/argon2`'s default algorithm and its OWASP-level
 * parameters: 19 MiB of memory, 2 passes, 1 lane), a random salt each time.
 *
 * @returns the PHC string (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`), which names its parameters.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/**
 * Whether a password matches a PHC hash made by {@link hashPassword}. A malformed hash is
 * a mismatch, never an error.
 */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
