/**
 * Bounded fuzzing of an HTTP app built in-process (light-my-request `inject`), shared by the
 * apps' fuzz tests (docs/reliability.md, "Hardening against abuse"): what every answer must be
 * (no 5xx, RFC 9457 problem details with a stable code on every 4xx, never the framework's
 * words), the run's bounds, and the generators of hostile requests.
 *
 * Bounds: `SETTLE_FUZZ_RUNS` runs per property (default 60), at most `SETTLE_FUZZ_TIME_MS` per
 * property (default 20 000 ms; a run cut short by it passes with the runs it made), from the seed
 * `SETTLE_FUZZ_SEED` (default fixed). The seed is printed, so a failure replays with
 * `SETTLE_FUZZ_SEED=<seed>`; fast-check also prints the failing case's path.
 */
import fc from 'fast-check';
import { expect } from 'vitest';

/** How long and from where a fuzz run goes. */
export interface FuzzBounds {
  seed: number;
  numRuns: number;
  /** Wall-clock budget of one property, milliseconds. */
  timeLimitMs: number;
}

/** Default seed: fixed, so CI runs the same cases every time unless told otherwise. */
const DEFAULT_SEED = 20_261_125;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

/** The run's bounds from the environment (see the module comment), printed once with the seed. */
export function fuzzBounds(label: string): FuzzBounds {
  const bounds = {
    seed: envInt('SETTLE_FUZZ_SEED', DEFAULT_SEED),
    numRuns: envInt('SETTLE_FUZZ_RUNS', 60),
    timeLimitMs: envInt('SETTLE_FUZZ_TIME_MS', 20_000),
  };
  console.log(`[fuzz ${label}] seed=${bounds.seed} runs=${bounds.numRuns} time-limit=${bounds.timeLimitMs}ms (replay: SETTLE_FUZZ_SEED=${bounds.seed})`);
  return bounds;
}

/** fast-check's parameters for one property under these bounds. */
export function fuzzParameters(bounds: FuzzBounds): fc.Parameters<unknown> {
  return { seed: bounds.seed, numRuns: bounds.numRuns, interruptAfterTimeLimit: bounds.timeLimitMs };
}

/** One fuzzed request. */
export interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  headers: Record<string, string>;
  payload?: Buffer;
}

/** What came back, as light-my-request gives it. */
export interface FuzzAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Words of the framework that must never reach a client. */
const FRAMEWORK_WORDS = /fastify|FST_|Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)|nestjs|at [\w.]+ \(.*:\d+:\d+\)/i;

/** A stable problem code: `AREA.REASON` in upper case, or `INTERNAL`. */
const PROBLEM_CODE = /^[A-Z][A-Z0-9_]*(\.[A-Z][A-Z0-9_]*)*$/;

/**
 * Asserts what any answer to any request must be: below 500; a 4xx is an RFC 9457 problem
 * (`application/problem+json`, `status` equal to the answer's, a stable `code`, a `type` and a
 * `title`) naming no framework; a 401 carries `WWW-Authenticate`, a 405 `Allow`.
 */
export function expectWellFormedAnswer(request: FuzzRequest, answer: FuzzAnswer): void {
  const where = `${request.method} ${request.url.slice(0, 200)}`;
  expect(answer.statusCode, `${where} answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
  expect(answer.body, where).not.toMatch(FRAMEWORK_WORDS);
  if (answer.statusCode < 400) return;
  expect(String(answer.headers['content-type']), where).toMatch(/^application\/problem\+json/);
  if (request.method === 'HEAD') return;
  const problem = JSON.parse(answer.body) as Record<string, unknown>;
  expect(problem.status, where).toBe(answer.statusCode);
  expect(problem.code, where).toMatch(PROBLEM_CODE);
  expect(typeof problem.type === 'string' && typeof problem.title === 'string', where).toBe(true);
  if (answer.statusCode === 401) expect(String(answer.headers['www-authenticate'] ?? ''), where).not.toBe('');
  if (answer.statusCode === 405) expect(String(answer.headers.allow ?? ''), where).not.toBe('');
}

/** Content types a client may send, hostile ones included; `undefined`: no header. */
export const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/problem+json',
    '*/*',
    ';;;',
    '',
  ),
  fc.constant(undefined),
  fc.string({ maxLength: 40 }),
);

/**
 * Characters that break naive storage and parsing: NUL (PostgreSQL cannot store it), lone
 * UTF-16 surrogates (no UTF-8 encoding: stored as U+FFFD unless refused), other C0 controls and
 * DEL, a C1 control, the line and paragraph separators, a BOM, U+FFFD itself, and an emoji (a
 * surrogate pair, which is valid).
 */
export const HOSTILE_CHARACTERS: readonly string[] = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u0001',
  '\u0008',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '😀',
];

/** Any UTF-16 code unit, lone surrogates included (fast-check's own units never make one). */
const codeUnitArb = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/**
 * Strings a hostile client sends: ordinary text, text mixed with {@link HOSTILE_CHARACTERS}, any
 * code units at all, and very long strings (beyond every field's limit, some past the body
 * limits).
 */
export function hostileStringArb(maxLength = 40): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength }) },
    // Ordinary text around one character no store can hold as sent (NUL, a lone surrogate).
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.string({ maxLength: maxLength / 2 }), fc.constantFrom('\u0000', '\ud800', '\udc00', '\udbff'), fc.string({ maxLength: maxLength / 2 }))
        .map(([before, c, after]) => before + c + after),
    },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.oneof(fc.constantFrom(...HOSTILE_CHARACTERS), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: Math.max(2, maxLength / 4) })
        .map((parts) => parts.join('')),
    },
    { weight: 2, arbitrary: fc.string({ unit: codeUnitArb, maxLength }) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 300, max: 40_000 }), fc.constantFrom('a', '\u0000', 'é', '😀', '\ud800')).map(([n, c]) => 'x'.repeat(n) + c),
    },
  );
}

/** Every string leaf of a JSON value, as the path of keys and indices that reaches it. */
function stringLeaves(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringLeaves(item, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]));
  return [];
}

/** A copy of a JSON value with the leaf at `path` replaced. */
function replacedAt(value: unknown, path: ReadonlyArray<string | number>, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replacedAt(item, rest, leaf) : item));
  const object = value as Record<string, unknown>;
  return { ...object, [head!]: replacedAt(object[head!], rest, leaf) };
}

/**
 * Bodies of an endpoint's own shape with one string field (or, when it has none, a new key)
 * replaced by a {@link hostileStringArb} string, or with a hostile key added: the requests that
 * reach past parsing and validation with text the database would refuse or alter.
 */
export function hostileFieldArb(shaped: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(shaped, hostileStringArb(), fc.nat(), fc.nat(3)).map(([value, hostile, pick, keyOneIn4]) => {
    const asKey = keyOneIn4 === 0;
    const leaves = stringLeaves(value);
    if (asKey || leaves.length === 0) return { ...value, [hostile]: 'x' };
    return replacedAt(value, leaves[pick % leaves.length]!, hostile) as Record<string, unknown>;
  });
}

/**
 * A text, percent-encoded for a URL: each character as `encodeURIComponent` writes it, and each
 * lone surrogate as the bytes of its generalized UTF-8 (`%ED%A0%80` for U+D800), which no
 * decoder accepts, as a client that does not check would send it.
 */
export function percentEncoded(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`.toUpperCase();
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** Query values: plausible, and {@link hostileStringArb} text percent-encoded, with hand-made broken encodings. */
export const queryValueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.@-]{0,20}$/) },
  { weight: 3, arbitrary: hostileStringArb().map(percentEncoded) },
  { weight: 1, arbitrary: fc.constantFrom('%00', '%', '%zz', '%C0%80', '%ED%A0%80', '%FF', 'a%00b', '%0D%0A', '%E2%80%A8') },
);

/** Number texts that JSON.parse reads loosely (fractions of integers, exponents, over 2^53). */
const looseNumberArb = fc.constantFrom('100.0', '1e3', '1E2', '100.0000000000000001', '9007199254740993', '-0', '1e400', '0.5', '-1', '0', '1e-7');

/**
 * JSON-ish bodies: valid JSON of any shape, JSON with a repeated key at some depth, JSON with
 * loosely written numbers, truncated or mangled JSON, deep nesting, random text and bytes.
 *
 * @param shaped - bodies of the endpoint's own shape, so that fuzzing also reaches past parsing.
 */
export function bodyArb(shaped: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Buffer> {
  const text = fc.oneof(
    { weight: 3, arbitrary: shaped.map((v) => JSON.stringify(v)) },
    // JSON.stringify writes a lone surrogate as its escape (\ud800) and a NUL as \u0000.
    { weight: 3, arbitrary: hostileFieldArb(shaped).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 2,
      arbitrary: fc.tuple(shaped, fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })).map(([value, key, extra]) => {
        const entries = Object.entries(value);
        const [firstKey, firstValue] = entries[0] ?? [key, extra];
        const pairs = [...entries, [firstKey, extra ?? firstValue]].map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v) ?? 'null'}`);
        return `{${pairs.join(', ')}}`;
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(shaped, looseNumberArb).map(([value, number]) => {
        const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v) ?? 'null'}`);
        return `{${[...entries.slice(0, -1), `"amount": ${number}`].join(', ')}}`;
      }),
    },
    { weight: 1, arbitrary: fc.tuple(shaped, fc.nat()).map(([value, cut]) => JSON.stringify(value).slice(0, cut % 200)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)) },
    { weight: 1, arbitrary: fc.constantFrom('{"__proto__": {"admin": true}}', '{"constructor": {"prototype": {"x": 1}}}', 'null', '[]', '""', '{}', ' ') },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  );
  return fc.oneof(
    { weight: 9, arbitrary: text.map((t) => Buffer.from(t, 'utf8')) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
  );
}

/**
 * Path segments: plausible ids, random text (percent-encoded), hostile text (NUL, lone
 * surrogates, control characters: {@link hostileStringArb}), broken encodings, traversal, very long.
 */
export const pathSegmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.=-]{1,40}$/) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 60 }).map((s) => encodeURIComponent(s)) },
  {
    weight: 2,
    arbitrary: hostileStringArb()
      .filter((s) => s.length > 0)
      .map(percentEncoded),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%zz',
      '%',
      '%00',
      'a%00b',
      '%01',
      '%7F',
      '%C0%80',
      '%ED%A0%80',
      '..',
      '%2e%2e',
      '%2F',
      'a%20b',
      '%E0%A4%A',
      '😀',
      '%F0%9F%98%80',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 9_000 }).map((n) => 'a'.repeat(n)) },
);

/**
 * Extra headers a hostile client adds: huge values, odd names, repeated hop-by-hop headers, and
 * values holding control characters and NUL (Node's parser refuses those on a real connection;
 * in-process requests reach the app with them, as a lenient proxy could). Header values are
 * bytes read as latin1, so no character is above U+00FF.
 */
export const extraHeadersArb: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom('x-forwarded-for', 'x-request-id', 'accept', 'accept-encoding', 'x-csrf-token', 'cookie', 'origin', 'traceparent', 'x-custom'),
  fc.oneof(
    fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    fc.integer({ min: 100, max: 6_000 }).map((n) => 'x'.repeat(n)),
    fc.string({ unit: fc.integer({ min: 0, max: 0xff }).map((b) => String.fromCharCode(b)), maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
  ),
  { maxKeys: 3 },
);
