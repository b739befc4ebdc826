import { ProblemError } from '@settle/platform';

/**
 * Text a request carries that could not be stored as it was sent, refused at the HTTP edge
 * before any handler runs (docs/errors.md, `REQUEST.INVALID_CHARACTER`):
 * - a NUL character (U+0000): a PostgreSQL `text` or `jsonb` value cannot hold it, so it would
 *   reach the database only to fail there;
 * - a lone UTF-16 surrogate (U+D800 to U+DFFF not part of a pair, such as the JSON escape
 *   `"\ud800"`): it has no UTF-8 encoding, so the driver writes U+FFFD in its place and what is
 *   stored is not what was sent;
 * - bytes that are not UTF-8 in a JSON body (RFC 8259, section 8.1): decoding them would
 *   replace them with U+FFFD the same way.
 * Every other character, control characters included, is ordinary text that is stored as sent.
 */

/** The stable problem code of every refusal of this module. */
export const INVALID_CHARACTER = 'REQUEST.INVALID_CHARACTER';

/** What is wrong with a piece of text: the first character that cannot be stored, named. */
export type UnstorableCharacter = 'a NUL character (U+0000)' | 'an unpaired UTF-16 surrogate';

/**
 * The first kind of unstorable character in a text, or `null` when it can be stored as it is.
 * Linear in the text's length; both checks are native (`includes`, `isWellFormed`).
 */
export function unstorableCharacter(text: string): UnstorableCharacter | null {
  if (text.includes('\u0000')) return 'a NUL character (U+0000)';
  if (!text.isWellFormed()) return 'an unpaired UTF-16 surrogate';
  return null;
}

/** One place of a request holding unstorable text, for the problem's `errors`. */
export interface UnstorablePlace {
  /**
   * Where: a JSON Pointer (RFC 6901) into the body (`/customer/email`, `''` for a top-level
   * string), `path.<name>` for a path parameter, `query.<name>` for a query parameter (or
   * `query` for a parameter's name), `header.<name>` for a header.
   */
  path: string;
  message: string;
}

/**
 * The problem that refuses a request for unstorable text: 400 {@link INVALID_CHARACTER}, its
 * detail naming the first place, `errors` every place found. It names neither the framework nor
 * the database.
 */
export function invalidCharacterProblem(places: readonly UnstorablePlace[]): ProblemError {
  const first = places[0]!;
  return new ProblemError(
    400,
    INVALID_CHARACTER,
    'Invalid character',
    `${first.path || '(body)'}: ${first.message}`,
    places.map((p) => ({ path: p.path || '(body)', message: p.message })),
  );
}

/** Longest name quoted in a place's path, characters (a hostile client's names can be long). */
const NAME_CHARS = 60;

/**
 * A name, as quoted in a place's path: cut at {@link NAME_CHARS}, with a NUL, a lone surrogate
 * and every control character written as its JSON escape (`JSON.stringify` escapes them all).
 */
function quoted(name: string): string {
  return JSON.stringify(name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS)}...` : name).slice(1, -1);
}

/** What a request target carries, as Fastify parsed it. */
export interface RequestText {
  /** Path parameters, decoded. */
  params?: unknown;
  /** Query parameters, decoded: a string or a list of strings per name. */
  query?: unknown;
  /** Header values, as Node read them (latin1, so never a surrogate; a NUL where a client sent one). */
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * Every place of a request's path parameters, query (names and values) and headers holding
 * unstorable text ({@link unstorableCharacter}); empty when there is none.
 */
export function unstorableRequestText(request: RequestText): UnstorablePlace[] {
  const places: UnstorablePlace[] = [];
  const visit = (path: string, value: unknown): void => {
    if (typeof value === 'string') {
      const found = unstorableCharacter(value);
      if (found) places.push({ path, message: `contains ${found}` });
    } else if (Array.isArray(value)) {
      for (const item of value) visit(path, item);
    }
  };
  for (const [name, value] of entries(request.params)) visit(`path.${quoted(name)}`, value);
  for (const [name, value] of entries(request.query)) {
    const inName = unstorableCharacter(name);
    if (inName) places.push({ path: 'query', message: `a parameter's name contains ${inName}` });
    visit(`query.${quoted(name)}`, value);
  }
  for (const [name, value] of entries(request.headers)) visit(`header.${name}`, value);
  return places;
}

/**
 * Every string of a JSON-like value (keys included) holding unstorable text, by JSON Pointer (RFC
 * 6901), with the messages the strict JSON body parser gives (`findJsonAmbiguities`): what a
 * command read from Kafka is checked with, so that the same terms are refused the same way as a
 * body of the HTTP API (`invalidCharacterProblem`).
 */
export function unstorableValueText(value: unknown, at = ''): UnstorablePlace[] {
  if (typeof value === 'string') {
    const found = unstorableCharacter(value);
    return found ? [{ path: at, message: `the string contains ${found}` }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => unstorableValueText(item, `${at}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const inKey = unstorableCharacter(key);
    return [...(inKey ? [{ path, message: `the key contains ${inKey}` }] : []), ...unstorableValueText(item, path)];
  });
}

function entries(value: unknown): Array<[string, unknown]> {
  return value !== null && typeof value === 'object' ? Object.entries(value) : [];
}
