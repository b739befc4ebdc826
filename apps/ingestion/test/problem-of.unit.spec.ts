import { describe, expect, it } from 'vitest';
import { problemOf } from '@settle/http';
import { ReadModelNotReadyError } from '@settle/ledger';

describe("ingestion's read models not there yet", () => {
  it('answer 503 READ_MODEL.NOT_READY (kind unavailable), so a client retries', () => {
    const problem = problemOf(new ReadModelNotReadyError());
    expect(problem).toMatchObject({ status: 503, code: 'READ_MODEL.NOT_READY' });
    expect(problem.toProblem('/v1/users/u/entitlements')).toMatchObject({ status: 503, code: 'READ_MODEL.NOT_READY', instance: '/v1/users/u/entitlements' });
  });
});
