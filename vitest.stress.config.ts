import { defineConfig } from 'vitest/config';

// `npm run test:stress`: tests that hold many descriptors or run for minutes (issue 23), each with a
// server of its own; .ci/run runs them after npm test.
export default defineConfig({
  test: {
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    include: ['test/stress/**/*.test.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
