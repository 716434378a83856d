// Prints the plain closing line CI reads ("N passed, N failed"), after vitest's own summary.

import type { Reporter, RunnerTestFile } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = []): void {
    let passed = 0, failed = 0, skipped = 0;
    const walk = (tasks: RunnerTestFile['tasks']): void => {
      for (const t of tasks) {
        if (t.type === 'suite') walk(t.tasks);
        else if (t.result?.state === 'pass') passed++;
        else if (t.result?.state === 'fail') failed++;
        else skipped++;
      }
    };
    for (const f of files) {
      walk(f.tasks);
      if (f.result?.state === 'fail' && f.tasks.length === 0) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
