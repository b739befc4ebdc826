import { describe, expect, it } from 'vitest';
import { ReadModelNotReadyError } from '@settle/ledger';
import { problemOf } from '../src/http/problem-of.js';

describe("ingestion's problem mapping", () => {
  it('answers 503 READ_MODEL.NOT_READY while the read models are not migrated', () => {
    const problem = problemOf(new ReadModelNotReadyError());
    expect(problem).toMatchObject({ status: 503, code: 'READ_MODEL.NOT_READY' });
    expect(problem?.toProblem('/v1/users/u/entitlements')).toMatchObject({ status: 503, code: 'READ_MODEL.NOT_READY', instance: '/v1/users/u/entitlements' });
  });

  it('leaves every other error to the generic mappings', () => {
    expect(problemOf(new Error('boom'))).toBeNull();
    expect(problemOf(Object.assign(new Error('relation does not exist'), { code: '42P01' }))).toBeNull();
  });
});
