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

/** Path segments: plausible ids, random text (percent-encoded), broken encodings, traversal, very long. */
export const pathSegmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.=-]{1,40}$/) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 60 }).map((s) => encodeURIComponent(s)) },
  { weight: 1, arbitrary: fc.constantFrom('%zz', '%', '%00', '..', '%2e%2e', '%2F', 'a%20b', '%E0%A4%A', '😀', '%F0%9F%98%80') },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 9_000 }).map((n) => 'a'.repeat(n)) },
);

/** Extra headers a hostile client adds: huge values, odd names, repeated hop-by-hop headers. */
export const extraHeadersArb: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom('x-forwarded-for', 'x-request-id', 'accept', 'accept-encoding', 'x-csrf-token', 'cookie', 'origin', 'x-custom'),
  fc.oneof(
    fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    fc.integer({ min: 100, max: 6_000 }).map((n) => 'x'.repeat(n)),
  ),
  { maxKeys: 3 },
);
