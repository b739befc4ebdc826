import { readFileSync } from 'node:fs';

/** Where a published sample comes from, as its fixture's header says. */
export interface SampleSource {
  provider: string;
  document: string;
  url: string;
  published: string;
  written: string;
  how: string;
}

/** How one state's answer may differ in shape from the published sample, and why (the fixture says). */
export interface SampleVariant {
  /** Paths (`data.paid_at`) whose value may be null in this state although the sample's is not. */
  nullable: readonly string[];
  /** Paths of objects that may be empty (`{}`) in this state although the sample's has keys. */
  empty: readonly string[];
  why?: string;
}

/** A provider's published answer sample, kept as a fixture (`test/fixtures/<provider>/*.json`). */
export interface SampleFixture {
  source: SampleSource;
  status?: number;
  body: unknown;
  variants?: Record<string, SampleVariant>;
}

/** Reads a fixture of `apps/provider-sandbox/test/fixtures`, e.g. `paystack/verify-200.json`. */
export function sampleFixture(name: string): SampleFixture {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as SampleFixture;
}

/** A JSON value's type: `null`, `array`, `object`, `string`, `number` or `boolean`. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Where `answer` departs from the shape of `sample` (empty when it does not): every key of the
 * sample must be present in the answer, its value of the same JSON type, objects compared key by
 * key and each array item against the sample's first; a key the sample does not have is allowed.
 * A `null` in the sample says nothing of the type, so any value passes there; `variant` lets a
 * state's answer have `null` (`nullable`) or `{}` (`empty`) where the sample has a value.
 *
 * @param path - where `sample` sits in the whole answer (`data.customer`), for messages and the variant's paths.
 */
export function shapeProblems(sample: unknown, answer: unknown, variant: Partial<SampleVariant> = {}, path = ''): string[] {
  const at = path || '(root)';
  if (sample === null) return [];
  if (answer === null && variant.nullable?.includes(path)) return [];
  const expected = jsonType(sample);
  const actual = jsonType(answer);
  if (expected !== actual) return [`${at}: ${actual} where the sample has ${expected}`];
  if (Array.isArray(sample) && Array.isArray(answer)) {
    const [first] = sample as unknown[];
    return first === undefined ? [] : (answer as unknown[]).flatMap((item, i) => shapeProblems(first, item, variant, `${path}[${i}]`));
  }
  if (expected === 'object') {
    const given = answer as Record<string, unknown>;
    if (Object.keys(given).length === 0 && variant.empty?.includes(path)) return [];
    return Object.entries(sample as Record<string, unknown>).flatMap(([key, value]) => {
      const child = path ? `${path}.${key}` : key;
      return key in given ? shapeProblems(value, given[key], variant, child) : [`${child}: missing`];
    });
  }
  return [];
}
