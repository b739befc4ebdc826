import { v5 as uuidv5 } from 'uuid';

/** Namespace of every deterministic Settle id (UUIDv5). */
const SETTLE_NAMESPACE = '0f4c1d5e-7b0a-5b9e-9a57-3c2f0d6f2a11';

/**
 * A deterministic UUID (v5) from the parts given: the same parts always give the same id,
 * so a redelivered message derives the id it had the first time and is stored once.
 */
export function deterministicId(...parts: Array<string | number>): string {
  return uuidv5(parts.map(String).join('\u001f'), SETTLE_NAMESPACE);
}
