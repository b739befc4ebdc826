import { parse as parseJsonAst, type AnyNode, type DocumentNode } from '@humanwhocodes/momoa';
import { ProblemError } from '@settle/platform';

/**
 * Reading JSON the way a money API must: one meaning per document, or a refusal.
 *
 * `JSON.parse` silently resolves two ambiguities that a second parser (a proxy, a log
 * pipeline, a customer's audit tool) may resolve the other way:
 * - a key repeated in an object (`{"amount": 100, "amount": 1}`): the last value wins;
 * - a number written otherwise than as an integer literal (`100.0`, `1e3`,
 *   `100.0000000000000001`) that it reads as an integer, and an integer literal beyond
 *   2^53 - 1 that it rounds.
 * Both are refused here, naming the JSON Pointer (RFC 6901) of the offending value.
 *
 * The document is read with `@humanwhocodes/momoa` (a maintained JSON parser, ESLint's, that
 * keeps every member of an object and the source range of every value), not a hand-written
 * scanner: `JSON.parse` itself exposes neither the repeated keys nor the number text.
 */

/** A place in a JSON document where its meaning is ambiguous. */
export interface JsonAmbiguity {
  /** `REQUEST.DUPLICATE_KEY` or `REQUEST.AMBIGUOUS_NUMBER`. */
  code: 'REQUEST.DUPLICATE_KEY' | 'REQUEST.AMBIGUOUS_NUMBER';
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
   * plain integer literal (`100.0`, `1e3`), and integer literals outside the safe integer range
   * (±(2^53 - 1)), at any depth. Every number Settle's APIs take is an integer (amounts in minor
   * units, counts, milliseconds), so a number that only rounds to one is ambiguous, never
   * rounded. Off for bodies written by others in their own units (provider webhooks, whose
   * amounts are major units such as `100.00`).
   */
  integerLiterals: boolean;
}

/** The document cannot be read as JSON at all (syntax error, nesting too deep for the reader). */
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

/** One segment of a JSON Pointer (RFC 6901, section 3): `~` as `~0`, `/` as `~1`. */
function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}...` : text;
}

/**
 * Parses JSON text into its syntax tree.
 *
 * @throws JsonSyntaxError for text that is not one JSON value (RFC 8259: no comments, no
 *   trailing commas, no `NaN`), or nesting too deep for the reader's stack.
 */
export function parseJsonDocument(text: string): DocumentNode {
  try {
    return parseJsonAst(text, { mode: 'json', ranges: true });
  } catch (error) {
    // A RangeError is a document nested deeper than the stack (`[[[[...`): refused like bad syntax.
    throw new JsonSyntaxError(error instanceof RangeError ? 'JSON nested too deeply' : 'Malformed JSON');
  }
}

/**
 * Every ambiguity of a JSON document (see {@link JsonStrictness}), in document order; with
 * `integerLiterals`, a number too large for a double (`1e400`, read as Infinity) too.
 * Iterative (an explicit stack), so a deeply nested document cannot exhaust the call stack here.
 *
 * @param text - the JSON text the tree was parsed from (numbers are read from it).
 * @returns an empty list when the document means one thing.
 */
export function findJsonAmbiguities(document: DocumentNode, text: string, strictness: JsonStrictness): JsonAmbiguity[] {
  const found: Array<JsonAmbiguity & { at: number }> = [];
  const stack: Array<{ node: AnyNode; path: string }> = [{ node: document.body, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    const children: Array<{ node: AnyNode; path: string }> = [];
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const member of node.members) {
        const key = member.name.type === 'String' ? member.name.value : member.name.name;
        const at = `${path}/${pointerSegment(key)}`;
        if (strictness.duplicateKeys && seen.has(key)) {
          found.push({
            code: 'REQUEST.DUPLICATE_KEY',
            path: at,
            message: `the key "${excerpt(key)}" appears more than once in its object`,
            at: member.range?.[0] ?? 0,
          });
        }
        seen.add(key);
        children.push({ node: member.value, path: at });
      }
    } else if (node.type === 'Array') {
      node.elements.forEach((element, index) => children.push({ node: element.value, path: `${path}/${index}` }));
    } else if (node.type === 'Number' && strictness.integerLiterals) {
      const literal = node.range ? text.slice(node.range[0], node.range[1]) : String(node.value);
      const integerLiteral = INTEGER_LITERAL.test(literal);
      const message = !Number.isFinite(node.value)
        ? `the number ${excerpt(literal)} is out of range`
        : integerLiteral
          ? Number.isSafeInteger(node.value)
            ? null
            : `the integer ${excerpt(literal)} is beyond the safe integer range and would be rounded`
          : Number.isInteger(node.value)
            ? `the number ${excerpt(literal)} reads as the integer ${node.value}: write integers (minor units) as integer literals`
            : null;
      if (message) found.push({ code: 'REQUEST.AMBIGUOUS_NUMBER', path, message, at: node.range?.[0] ?? 0 });
    }
    // Reversed, so the stack pops them in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found.sort((a, b) => a.at - b.at).map(({ code, path, message }) => ({ code, path, message }));
}

/**
 * The problem a request body's ambiguities answer: 400 with the first ambiguity's code, naming
 * every ambiguous place in `errors` (paths as JSON Pointers).
 */
export function ambiguityProblem(ambiguities: readonly JsonAmbiguity[]): ProblemError {
  const first = ambiguities[0]!;
  const title = first.code === 'REQUEST.DUPLICATE_KEY' ? 'Duplicate key in JSON body' : 'Ambiguous number in JSON body';
  return new ProblemError(
    400,
    first.code,
    title,
    `${first.path || '(body)'}: ${first.message}`,
    ambiguities.map((a) => ({ path: a.path || '(body)', message: a.message })),
  );
}

/**
 * Reads a JSON request body strictly: a syntax check, then {@link findJsonAmbiguities}.
 * It does not build the value (the caller's JSON parser does, with its own protections).
 *
 * @throws ProblemError 400 `REQUEST.MALFORMED_JSON` for text that is not JSON,
 *   400 `REQUEST.DUPLICATE_KEY` or `REQUEST.AMBIGUOUS_NUMBER` for an ambiguous document.
 */
export function assertUnambiguousJson(text: string, strictness: JsonStrictness): void {
  let document: DocumentNode;
  try {
    document = parseJsonDocument(text);
  } catch (error) {
    throw new ProblemError(400, 'REQUEST.MALFORMED_JSON', 'Malformed JSON body', (error as Error).message);
  }
  const ambiguities = findJsonAmbiguities(document, text, strictness);
  if (ambiguities.length > 0) throw ambiguityProblem(ambiguities);
}

/**
 * The string values a JSON document holds at a path of keys, every one of them when a key is
 * repeated (for the webhook of a repeated reference, to verify each reference it names).
 * Never throws: text that is not JSON holds none.
 */
export function stringsAtPath(text: string, path: readonly string[]): string[] {
  let document: DocumentNode;
  try {
    document = parseJsonDocument(text);
  } catch {
    return [];
  }
  let level: AnyNode[] = [document.body];
  for (const key of path) {
    const next: AnyNode[] = [];
    for (const node of level) {
      if (node.type !== 'Object') continue;
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        if (name === key) next.push(member.value);
      }
    }
    level = next;
  }
  return [...new Set(level.flatMap((node) => (node.type === 'String' ? [node.value] : [])))];
}
