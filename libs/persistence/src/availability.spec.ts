/**
 * What counts as "the database is unavailable" (503 / hold the message) and what does not (a
 * statement that is wrong stays a bug or a bad message). Mutation tried: dropping the SQLSTATE
 * class 08 rule fails the 08006 case.
 */
import { describe, expect, it } from '@jest/globals';
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { isDatabaseUnavailable, isStatementTimeout } from './availability.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly')],
    ['pg pool: connect deadline', new Error('timeout exceeded when trying to connect')],
    ['57P01 admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['57P03 cannot connect now', pgError('57P03', 'the database system is starting up')],
    ['08006 connection failure', pgError('08006')],
    ['53300 too many connections', pgError('53300')],
    ['wrapped by MikroORM', new DriverException(pgError('08001'))],
    ['as a cause', new Error('outer', { cause: pgError('57P01') })],
    ['in an AggregateError', new AggregateError([pgError('ECONNREFUSED')])],
  ])('%s → unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['unique violation', new UniqueConstraintViolationException(pgError('23505'))],
    ['syntax error', pgError('42601')],
    ['plain bug', new TypeError('x is undefined')],
    ['not an error', 'ECONNREFUSED'],
    ['statement timeout (told apart)', pgError('57014', 'canceling statement due to statement timeout')],
  ])('%s → not unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('recognizes a statement timeout, not a user cancel', () => {
    expect(isStatementTimeout(new DriverException(pgError('57014', 'canceling statement due to statement timeout')))).toBe(true);
    expect(isStatementTimeout(pgError('57014', 'canceling statement due to user request'))).toBe(false);
  });
});
