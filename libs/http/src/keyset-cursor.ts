import { ProblemError } from '@settle/platform';

/**
 * The keyset cursor of a list ordered by a timestamp, ties broken by reference: the last row of
 * a page, `(at, reference)` (the console's transaction list and queues, ingestion's unmatched
 * payments). `at` is the timestamp as PostgreSQL's text with microseconds
 * (`2026-11-25T08:58:09.123456Z`), since a JavaScript date would drop the microseconds and skip
 * or repeat rows. Opaque to clients: base64url of a JSON pair.
 */
export interface KeysetCursor {
  at: string;
  reference: string;
}

/** UTC timestamp with exactly six fractional digits, as the lists select it (`to_char(... 'US')`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The opaque text of a cursor. */
export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.reference]), 'utf8').toString('base64url');
}

/**
 * The cursor a text stands for.
 *
 * @returns the cursor, or `null` when the text is not one {@link encodeKeysetCursor} made.
 */
export function decodeKeysetCursor(text: string): KeysetCursor | null {
  if (!/^[A-Za-z0-9_-]{1,1000}$/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [at, reference] = value as unknown[];
  if (typeof at !== 'string' || !TIMESTAMP.test(at) || Number.isNaN(Date.parse(at))) return null;
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 200) return null;
  return { at, reference };
}

/**
 * The cursor of a list query's `cursor` parameter.
 *
 * @returns `undefined` when absent.
 * @throws ProblemError 400 `REQUEST.VALIDATION_FAILED` when it is not a cursor the list gave.
 */
export function parseKeysetCursor(text: string | undefined): KeysetCursor | undefined {
  if (text === undefined) return undefined;
  const cursor = decodeKeysetCursor(text);
  if (!cursor) {
    throw new ProblemError(400, 'REQUEST.VALIDATION_FAILED', 'Invalid query', 'One or more fields are invalid', [
      { path: 'cursor', message: 'not a cursor of this list' },
    ]);
  }
  return cursor;
}
