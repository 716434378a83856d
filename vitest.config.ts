import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // uWS is a native addon: keep each test file in its own process.
    pool: 'forks',
    // vitest runs one file at a time on 2 cores (its default is cores - 1), yet most files spend their
    // time waiting on a server, a browser or a child process: CI_FORKS sets how many run at once.
    poolOptions: { forks: { maxForks: Number(process.env.CI_FORKS ?? 3), minForks: 1 } },
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    include: ['test/**/*.test.ts'],
    // npm run test:stress (vitest.stress.config.ts).
    exclude: ['test/stress/**', '**/node_modules/**'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
