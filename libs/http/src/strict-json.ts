import { ProblemError } from '@settle/platform';
import { INVALID_CHARACTER, unstorableCharacter } from './storable-text.js';

/**
 * Reading JSON the way a money API must: one meaning per document, or a refusal.
 *
 * `JSON.parse` silently resolves two ambiguities that a second parser (a proxy, a log
 * pipeline, a customer's audit tool) may resolve the other way:
 * - a key repeated in an object (`{"amount": 100, "amount": 1}`): the last value wins;
 * - a number written otherwise than as an integer literal (`100.0`, `1e3`,
 *   `100.0000000000000001`) that it reads as an integer, and an integer literal beyond
 *   2^53 - 1 that it rounds.
 * Both are refused here, naming the JSON Pointer (RFC 6901) of the offending value; so is a string
 * or key that could not be stored as sent (a NUL or a lone surrogate: `storable-text.ts`), found
 * in the same pass.
 *
 * How: `JSON.parse` decides whether the text is JSON at all (RFC 8259 syntax, natively); then
 * {@link scanJson}, a small scanner over text already known to be valid, walks it once to see
 * what `JSON.parse` hides: every key of every object and the text of every number. No
 * maintained package fits (docs/reliability.md, "Hardening against abuse"): an AST parser
 * (`@humanwhocodes/momoa`) gives both but costs about 100 times `JSON.parse` on a body dense in
 * numbers (175 ms for 256 KiB), paid before authentication; `lossless-json` keeps number text
 * but accepts a repeated key with an equal value and names no path.
 */

/** A place in a JSON document where its meaning is ambiguous. */
export interface JsonAmbiguity {
  /** `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER` or `REQUEST.INVALID_CHARACTER`. */
  code: 'REQUEST.DUPLICATE_KEY' | 'REQUEST.AMBIGUOUS_NUMBER' | typeof INVALID_CHARACTER;
  /** JSON Pointer (RFC 6901) of the repeated key or of the number; `''` is the whole document. */
  path: string;
  /** What is wrong there, for the problem's `errors`; quotes at most 40 characters of the body. */
  message: string;
}

/** Which ambiguities {@link findJsonAmbiguities} looks for. */
export interface JsonStrictness {
  /** Refuse repeated keys in an object, at any depth. */
  duplicateKeys: boolean;
  /**
   * Refuse numbers that `JSON.parse` would read as an integer but that are not written as a
   * plain integer literal (`100.0`, `1e3`), integer literals outside the safe integer range
   * (±(2^53 - 1)) and numbers too large for a double (`1e400`), at any depth. Every number
   * Settle's APIs take is an integer (amounts in minor units, counts, milliseconds), so a number
   * that only rounds to one is ambiguous, never rounded. Off for bodies written by others in
   * their own units (provider webhooks, whose amounts are major units such as `100.00`).
   */
  integerLiterals: boolean;
  /**
   * Refuse a string or key holding a NUL (U+0000) or an unpaired UTF-16 surrogate (`"\ud800"`),
   * at any depth (`REQUEST.INVALID_CHARACTER`): PostgreSQL cannot store the first and would
   * store U+FFFD for the second (`unstorableCharacter`). On for every body Settle reads.
   */
  characters: boolean;
}

/** Deepest nesting of arrays and objects read (RFC 8259, section 9 lets a parser set one); deeper: malformed. */
export const MAX_JSON_DEPTH = 64;

/** The document cannot be read as JSON (syntax, or nested deeper than {@link MAX_JSON_DEPTH}). */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Integer literal of JSON (RFC 8259, section 6): an optional minus, no leading zero, no fraction or exponent. */
const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/** Longest excerpt of the body a message quotes, characters. */
const EXCERPT_CHARS = 40;

/** A value's place: object keys and array indices, outermost first. */
export type JsonPath = ReadonlyArray<string | number>;

/** What {@link scanJson} reports of one scalar value or object key. */
export interface JsonScanVisitor {
  /** A key of an object; `repeated` when the object already had it (after unescaping). */
  key?(path: JsonPath, key: string, repeated: boolean): void;
  /** A string value, unescaped. */
  string?(path: JsonPath, value: string): void;
  /**
   * A number, as its source text; `short` for an integer literal of at most 15 digits (a safe
   * integer, the common case, told apart without reading it).
   */
  number?(path: JsonPath, literal: string, short: boolean): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Walks JSON text once, iteratively (no recursion, so no nesting exhausts the stack), reporting
 * keys, strings and numbers with their path (keys and array indices). The text must be valid
 * JSON: call it after `JSON.parse` accepted the same text (it does not check syntax).
 *
 * @throws JsonSyntaxError for nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function scanJson(text: string, visitor: JsonScanVisitor): void {
  const path: Array<string | number> = [];
  // Per open container: the keys seen (an object) or the element count (an array).
  const frames: Array<{ keys: Set<string>; expectKey: boolean } | { index: number }> = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (frames.length >= MAX_JSON_DEPTH) throw new JsonSyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
      frames.push(c === 0x7b ? { keys: new Set(), expectKey: true } : { index: 0 });
      path.push(c === 0x7b ? '' : 0);
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
      path.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      const frame = frames[frames.length - 1]!;
      if ('index' in frame) path[path.length - 1] = ++frame.index;
      else frame.expectKey = true;
      i++;
    } else if (c === QUOTE) {
      let end = i + 1;
      let escaped = false;
      for (; end < n; end++) {
        const d = text.charCodeAt(end);
        if (d === BACKSLASH) {
          escaped = true;
          end++;
        } else if (d === QUOTE) break;
      }
      const value = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
      const frame = frames[frames.length - 1];
      if (frame && 'keys' in frame && frame.expectKey) {
        const repeated = frame.keys.has(value);
        frame.keys.add(value);
        frame.expectKey = false;
        path[path.length - 1] = value;
        visitor.key?.(path, value, repeated);
      } else {
        visitor.string?.(path, value);
      }
      i = end + 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      let integer = true;
      for (; end < n; end++) {
        const d = text.charCodeAt(end);
        if (d >= 0x30 && d <= 0x39) continue;
        // '.', 'e', 'E', '+', '-': the other characters of a JSON number
        if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) integer = false;
        else break;
      }
      if (visitor.number) visitor.number(path, text.slice(i, end), integer && end - i <= 15);
      i = end;
    } else {
      // whitespace, ':', and the letters of true, false and null
      i++;
    }
  }
}

/** One segment of a JSON Pointer (RFC 6901, section 3): `~` as `~0`, `/` as `~1`. */
function pointer(path: JsonPath): string {
  return path.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}...` : text;
}

/** Why a number's text is ambiguous, or `null` when it is not. */
function numberAmbiguity(literal: string): string | null {
  const value = Number(literal);
  if (!Number.isFinite(value)) return `the number ${excerpt(literal)} is out of range`;
  if (INTEGER_LITERAL.test(literal)) {
    return Number.isSafeInteger(value) ? null : `the integer ${excerpt(literal)} is beyond the safe integer range and would be rounded`;
  }
  return Number.isInteger(value) ? `the number ${excerpt(literal)} reads as the integer ${value}: write integers (minor units) as integer literals` : null;
}

/**
 * Every ambiguity of a JSON text (see {@link JsonStrictness}), in document order.
 *
 * @returns an empty list when the document means one thing.
 * @throws JsonSyntaxError for text that is not JSON (RFC 8259: no comments, no trailing commas,
 *   no `NaN`) or nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function findJsonAmbiguities(text: string, strictness: JsonStrictness): JsonAmbiguity[] {
  try {
    JSON.parse(text);
  } catch {
    throw new JsonSyntaxError('Malformed JSON');
  }
  const found: JsonAmbiguity[] = [];
  scanJson(text, {
    key: (path, key, repeated) => {
      const character = strictness.characters ? unstorableCharacter(key) : null;
      if (character) found.push({ code: INVALID_CHARACTER, path: pointer(path), message: `the key contains ${character}` });
      if (repeated && strictness.duplicateKeys) {
        found.push({ code: 'REQUEST.DUPLICATE_KEY', path: pointer(path), message: `the key "${excerpt(key)}" appears more than once in its object` });
      }
    },
    string: (path, value) => {
      const character = strictness.characters ? unstorableCharacter(value) : null;
      if (character) found.push({ code: INVALID_CHARACTER, path: pointer(path), message: `the string contains ${character}` });
    },
    number: (path, literal, short) => {
      const message = strictness.integerLiterals && !short ? numberAmbiguity(literal) : null;
      if (message) found.push({ code: 'REQUEST.AMBIGUOUS_NUMBER', path: pointer(path), message });
    },
  });
  return found;
}

const AMBIGUITY_TITLES: Readonly<Record<JsonAmbiguity['code'], string>> = {
  'REQUEST.DUPLICATE_KEY': 'Duplicate key in JSON body',
  'REQUEST.AMBIGUOUS_NUMBER': 'Ambiguous number in JSON body',
  [INVALID_CHARACTER]: 'Invalid character',
};

/**
 * The problem a request body's ambiguities answer: 400 with the first ambiguity's code, naming
 * every ambiguous place in `errors` (paths as JSON Pointers).
 */
export function ambiguityProblem(ambiguities: readonly JsonAmbiguity[]): ProblemError {
  const first = ambiguities[0]!;
  const title = AMBIGUITY_TITLES[first.code];
  return new ProblemError(
    400,
    first.code,
    title,
    `${first.path || '(body)'}: ${first.message}`,
    ambiguities.map((a) => ({ path: a.path || '(body)', message: a.message })),
  );
}

/**
 * Reads a JSON request body strictly: {@link findJsonAmbiguities}, as a problem. It does not
 * build the value (the caller's JSON parser does, with its own protections).
 *
 * @throws ProblemError 400 `REQUEST.MALFORMED_JSON` for text that is not JSON or is nested too
 *   deeply, 400 `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER` or `REQUEST.INVALID_CHARACTER`
 *   (the first found) for an ambiguous or unstorable document.
 */
export function assertUnambiguousJson(text: string, strictness: JsonStrictness): void {
  let ambiguities: JsonAmbiguity[];
  try {
    ambiguities = findJsonAmbiguities(text, strictness);
  } catch (error) {
    throw new ProblemError(400, 'REQUEST.MALFORMED_JSON', 'Malformed JSON body', (error as Error).message);
  }
  if (ambiguities.length > 0) throw ambiguityProblem(ambiguities);
}

/**
 * The string values a JSON text holds at a path of keys, every one of them when a key is
 * repeated (for the webhook of a repeated reference, to verify each reference it names), each
 * once. Never throws: text that is not JSON, or nested too deeply, holds none.
 */
export function stringsAtPath(text: string, path: readonly string[]): string[] {
  const found = new Set<string>();
  try {
    JSON.parse(text);
    scanJson(text, {
      string: (at, value) => {
        if (at.length === path.length && at.every((key, i) => String(key) === path[i])) found.add(value);
      },
    });
  } catch {
    return [];
  }
  return [...found];
}
