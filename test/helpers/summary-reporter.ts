// Prints the plain closing line CI reads ("N passed, N failed") after vitest's own summary
// (onFinished: the default reporter writes its summary before this one's turn there).
// A failure is anything that makes the run exit non-zero: a failed test, a file or suite
// that errored outside its tests (at import, or in a beforeAll/afterAll hook: its tests
// never pass, so counting tests alone would say "0 failed"), and an unhandled error.

import type { Reporter, RunnerTask, RunnerTestFile } from 'vitest/node';

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The counts over the run's files; each file or suite with errors of its own counts one failure. */
export function countRun(files: readonly RunnerTestFile[], unhandledErrors: readonly unknown[]): Counts {
  const c: Counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
  const walk = (t: RunnerTask): void => {
    if (t.type === 'suite') {
      if ((t.result?.errors?.length ?? 0) > 0) c.failed++;
      for (const child of t.tasks) walk(child);
    } else if (t.result?.state === 'pass') c.passed++;
    else if (t.result?.state === 'fail') c.failed++;
    else c.skipped++;
  };
  for (const f of files) walk(f);
  return c;
}

export default class SummaryReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    const { passed, failed, skipped } = countRun(files, errors);
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
