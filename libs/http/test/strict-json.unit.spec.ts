import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertUnambiguousJson, findJsonAmbiguities, MAX_JSON_DEPTH, stringsAtPath, type JsonStrictness } from '@settle/http';
import { ProblemError } from '@settle/platform';

const STRICT: JsonStrictness = { duplicateKeys: true, integerLiterals: true, characters: true };

const ambiguities = (text: string, strictness = STRICT) => findJsonAmbiguities(text, strictness);

/** The problem `assertUnambiguousJson` throws for a text. */
function refusal(text: string, strictness = STRICT): ProblemError {
  try {
    assertUnambiguousJson(text, strictness);
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('duplicate keys (a money API refuses ambiguous JSON)', () => {
  it.each([
    ['{"amount": 100, "amount": 1}', '/amount'],
    ['{"reference": "ref_a", "currency": "NGN", "reference": "ref_b"}', '/reference'],
    ['{"customer": {"email": "a@x.io", "email": "b@x.io"}}', '/customer/email'],
    ['[{"ok": 1}, {"a": {"b": [0, {"c": 1, "c": 1}]}}]', '/1/a/b/1/c'],
    ['{"a/b~c": 1, "a/b~c": 2}', '/a~1b~0c'],
    ['{"": 1, "": 2}', '/'],
  ])('%s is refused at %s (JSON Pointer, RFC 6901)', (text, path) => {
    const problem = refusal(text);
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('REQUEST.DUPLICATE_KEY');
    expect(problem.errors).toEqual([{ path, message: expect.stringContaining('appears more than once') }]);
  });

  it('a repeated key is refused even with the same value, and a key is compared after unescaping', () => {
    expect(refusal('{"amount": 100, "amount": 100}').code).toBe('REQUEST.DUPLICATE_KEY');
    expect(refusal('{"amount": 100, "\\u0061mount": 100}').errors).toEqual([{ path: '/amount', message: expect.any(String) }]);
  });

  it('the same key in different objects is no duplicate', () => {
    expect(ambiguities('{"a": {"id": 1}, "b": {"id": 1}, "c": [{"id": 1}, {"id": 2}]}')).toEqual([]);
  });

  it('every ambiguity is named, in document order', () => {
    expect(ambiguities('{"a": 1, "a": 2, "b": {"c": 1.0, "d": 1, "d": 2}}').map((a) => `${a.code} ${a.path}`)).toEqual([
      'REQUEST.DUPLICATE_KEY /a',
      'REQUEST.AMBIGUOUS_NUMBER /b/c',
      'REQUEST.DUPLICATE_KEY /b/d',
    ]);
  });

  it('can be switched off', () => {
    expect(ambiguities('{"a": 1, "a": 2}', { duplicateKeys: false, integerLiterals: true, characters: true })).toEqual([]);
  });

  it('any object with a repeated key is found, wherever it sits (property)', () => {
    const key = fc.string({ maxLength: 8 });
    fc.assert(
      fc.property(key, fc.jsonValue(), fc.jsonValue(), fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }), (k, first, second, nesting) => {
        let text = `{${JSON.stringify(k)}: ${JSON.stringify(first)}, ${JSON.stringify(k)}: ${JSON.stringify(second)}}`;
        for (const outer of nesting) text = `{${JSON.stringify(outer)}: ${text}}`;
        const found = ambiguities(text, { duplicateKeys: true, integerLiterals: false, characters: true });
        expect(found.map((a) => a.code)).toContain('REQUEST.DUPLICATE_KEY');
      }),
      { seed: 20261125, numRuns: 200 },
    );
  });
});

describe('numbers that JSON.parse turns into integers are refused, never rounded', () => {
  it.each(['100.0', '1e3', '1E2', '1.5e2', '100.0000000000000001', '-0.0', '10e-1', '9007199254740993', '-9007199254740993', '1e400'])(
    '{"amount": %s} is refused',
    (literal) => {
      const problem = refusal(`{"amount": ${literal}}`);
      expect(problem.code).toBe('REQUEST.AMBIGUOUS_NUMBER');
      expect(problem.errors).toEqual([{ path: '/amount', message: expect.stringContaining(literal.slice(0, 10)) }]);
    },
  );

  it.each(['100', '0', '-5', '9007199254740991', '100.5', '0.25', '1e-7'])(
    '{"amount": %s} is left to the schema (an integer literal or a true fraction)',
    (literal) => {
      expect(() => assertUnambiguousJson(`{"amount": ${literal}}`, STRICT)).not.toThrow();
    },
  );

  it('applies at any depth, and can be switched off (provider webhooks write major units such as 100.00)', () => {
    expect(ambiguities('{"data": {"items": [{"amount": 1e3}]}}').map((a) => a.path)).toEqual(['/data/items/0/amount']);
    expect(ambiguities('{"data": {"amount": 100.00}}', { duplicateKeys: true, integerLiterals: false, characters: true })).toEqual([]);
  });

  it('every integral number written otherwise than as a safe integer literal is refused (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 1, max: 6 }), (n, zeros) => {
        const text = `{"amount": ${n}.${'0'.repeat(zeros)}}`;
        expect(ambiguities(text).map((a) => a.code)).toEqual(['REQUEST.AMBIGUOUS_NUMBER']);
        expect(ambiguities(`{"amount": ${n}}`)).toEqual([]);
      }),
      { seed: 20261125, numRuns: 200 },
    );
  });
});

describe('text that could not be stored as sent (REQUEST.INVALID_CHARACTER)', () => {
  it.each([
    ['a NUL in a string', '{"user_id": "user\\u0000_1"}', '/user_id', 'NUL'],
    ['a NUL deep in an array', '{"a": [{"b": ["ok", "\\u0000"]}]}', '/a/0/b/1', 'NUL'],
    ['a NUL in a key', '{"us\\u0000er": 1}', '/us\u0000er', 'NUL'],
    ['a lone high surrogate', '{"email": "a\\ud800@example.com"}', '/email', 'surrogate'],
    ['a lone low surrogate', '{"q": "\\udc00"}', '/q', 'surrogate'],
    ['a surrogate pair in the wrong order', '{"q": "\\udc00\\ud800"}', '/q', 'surrogate'],
    ['a lone surrogate in a key', '{"\\ud83d": "x"}', '/\ud83d', 'surrogate'],
    ['a lone surrogate as the whole document', '"\\ud800"', '', 'surrogate'],
  ])('%s is refused, naming where', (_, text, path, what) => {
    const problem = refusal(text);
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('REQUEST.INVALID_CHARACTER');
    expect(problem.title).toBe('Invalid character');
    expect(problem.errors).toEqual([{ path: path || '(body)', message: expect.stringContaining(what) }]);
  });

  it('a surrogate pair (an emoji, escaped or not), other control characters and U+FFFD are ordinary text', () => {
    for (const text of ['{"q": "\\ud83d\\ude00"}', '{"q": "😀"}', '{"q": "\\u0001\\u001f\\u007f\\t"}', '{"q": "\\ufffd"}']) {
      expect(ambiguities(text)).toEqual([]);
    }
  });

  it('can be switched off', () => {
    expect(ambiguities('{"q": "\\u0000\\ud800"}', { duplicateKeys: true, integerLiterals: true, characters: false })).toEqual([]);
  });

  it('every string holding a NUL or a lone surrogate is refused, wherever it sits (property)', () => {
    const bad = fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff');
    fc.assert(
      fc.property(
        fc.string({ maxLength: 6 }),
        bad,
        fc.string({ maxLength: 6 }),
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }),
        (before, c, after, nesting) => {
          let text = JSON.stringify(before + c + after);
          for (const outer of nesting) text = `{${JSON.stringify(outer)}: [${text}]}`;
          expect(ambiguities(text).map((a) => a.code)).toEqual(['REQUEST.INVALID_CHARACTER']);
        },
      ),
      { seed: 20261125, numRuns: 200 },
    );
  });
});

describe('syntax', () => {
  it.each(['', ' ', '{', '{"a": 1,}', '// c\n{}', '{"a": NaN}', "{'a': 1}", '{"a": 01}', '[1] [2]'])('%j is malformed JSON (400)', (text) => {
    expect(refusal(text).code).toBe('REQUEST.MALFORMED_JSON');
  });

  it('a document nested deeper than the limit is malformed, not a crash', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(() => assertUnambiguousJson(nested(MAX_JSON_DEPTH), STRICT)).not.toThrow();
    expect(refusal(nested(MAX_JSON_DEPTH + 1)).code).toBe('REQUEST.MALFORMED_JSON');
    expect(refusal(nested(200_000)).code).toBe('REQUEST.MALFORMED_JSON');
  });

  it('strings holding quotes, escapes and number-like text are not mistaken for structure', () => {
    const text = `{"a": ${JSON.stringify('x\\"y, "a": 1e3')}, "b": ${JSON.stringify(['{"c":1,"c":2}', '1.0'])}, "k\\u0065y": 1, "key2": -0.5e-3}`;
    expect(JSON.parse(text)).toMatchObject({ a: 'x\\"y, "a": 1e3', key: 1 });
    expect(ambiguities(text)).toEqual([]);
  });

  it('accepts what JSON.parse accepts when it is unambiguous (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // fc.jsonValue has no duplicate keys; only its floats that are integral can be refused.
        const refused = ambiguities(text, { duplicateKeys: true, integerLiterals: false, characters: true });
        expect(refused).toEqual([]);
      }),
      { seed: 20261125, numRuns: 300 },
    );
  });
});

describe('stringsAtPath', () => {
  it('returns every value of a repeated key along the path, once each', () => {
    expect(stringsAtPath('{"data": {"reference": "ref_a", "reference": "ref_b", "reference": "ref_a"}}', ['data', 'reference'])).toEqual(['ref_a', 'ref_b']);
    expect(stringsAtPath('{"data": {"reference": "ref_a"}, "data": {"reference": "ref_c"}}', ['data', 'reference'])).toEqual(['ref_a', 'ref_c']);
  });

  it('ignores values that are not strings and text that is not JSON', () => {
    expect(stringsAtPath('{"data": {"reference": 5}}', ['data', 'reference'])).toEqual([]);
    expect(stringsAtPath('not json', ['data'])).toEqual([]);
  });
});
