// The closing "N passed, N failed" line CI reads counts every failure that makes the run
// exit non-zero: a file that throws at import and a suite whose beforeAll/afterAll throws
// count as failures even though none of their tests failed.

import { describe, expect, it } from 'vitest';
import { countRun } from './helpers/summary-reporter.js';

const test = (state?: 'pass' | 'fail' | 'skip') => ({ type: 'test', result: state ? { state } : undefined });
const suite = (tasks: any[], errors: unknown[] = []) => ({ type: 'suite', tasks, result: { state: errors.length ? 'fail' : 'pass', errors } });

describe('summary line counts', () => {
  it('counts tests by state', () => {
    expect(countRun([suite([test('pass'), test('fail'), test('skip'), test()])] as any, [])).toEqual({ passed: 1, failed: 1, skipped: 2 });
  });

  it('a file that throws at import is a failure', () => {
    expect(countRun([suite([], [new Error('import')])] as any, []).failed).toBe(1);
  });

  it('a suite whose beforeAll throws (its tests never run) is a failure', () => {
    expect(countRun([suite([suite([test()], [new Error('beforeAll')])])] as any, [])).toEqual({ passed: 0, failed: 1, skipped: 1 });
  });

  it('an afterAll that throws after passing tests is a failure, and so is an unhandled error', () => {
    expect(countRun([suite([test('pass')], [new Error('afterAll')])] as any, [new Error('unhandled')])).toEqual({ passed: 1, failed: 2, skipped: 0 });
  });
});
