/**
 * The keyset cursor of the transaction list (newest first, ties broken by reference,
 * descending): the last row of a page, `(updated_at, reference)`. `updatedAt` is the
 * timestamp as PostgreSQL's text with microseconds (`2026-11-25T08:58:09.123456Z`), since a
 * JavaScript date would drop the microseconds and skip or repeat rows. Opaque to clients:
 * base64url of a JSON pair.
 */
export interface ListCursor {
  updatedAt: string;
  reference: string;
}

/** UTC timestamp with exactly six fractional digits, as the repository selects it. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The opaque text of a cursor. */
export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.reference]), 'utf8').toString('base64url');
}

/**
 * The cursor a text stands for.
 *
 * @returns the cursor, or `null` when the text is not one {@link encodeCursor} made.
 */
export function decodeCursor(text: string): ListCursor | null {
  if (!/^[A-Za-z0-9_-]{1,1000}$/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [updatedAt, reference] = value as unknown[];
  if (typeof updatedAt !== 'string' || !TIMESTAMP.test(updatedAt) || Number.isNaN(Date.parse(updatedAt))) return null;
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 200) return null;
  return { updatedAt, reference };
}
