import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // uWS is a native addon: keep each test file in its own process.
    pool: 'forks',
    // vitest runs one file at a time on 2 cores (its default is cores - 1), yet a file waits part of its time
    // on a server's start, a browser or a child process: three at once took the suite from 1,425 to 1,082-1,149 s
    // on a 2-core VM (2026-11-28); past that the cores are the limit. CI_FORKS sets how many run at once.
    poolOptions: { forks: { maxForks: Math.max(1, Number(process.env.CI_FORKS) || 3), minForks: 1 } },
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    include: ['test/**/*.test.ts'],
    // npm run test:stress (vitest.stress.config.ts).
    exclude: ['test/stress/**', '**/node_modules/**'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
