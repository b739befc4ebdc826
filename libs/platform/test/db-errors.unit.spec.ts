import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '@settle/platform';

describe('isDatabaseUnavailable', () => {
  it.each([
    ['admin shutdown (57P01)', { code: '57P01', message: 'terminating connection due to administrator command' }],
    ['crash shutdown (57P02)', { code: '57P02', message: 'terminating connection due to crash of another server process' }],
    ['starting up (57P03)', { code: '57P03', message: 'the database system is starting up' }],
    ['connection exception class 08', { code: '08006', message: 'connection failure' }],
    ['too many connections (53300)', { code: '53300', message: 'sorry, too many clients already' }],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
    ['a client no longer queryable', new Error('Client has encountered a connection error and is not queryable')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', { code: '23505', message: 'duplicate key value violates unique constraint' }],
    ['a syntax error', { code: '42601', message: 'syntax error at or near "SELEC"' }],
    ['a domain error', new Error('amount mismatch')],
    ['nothing', undefined],
    ['a string', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
