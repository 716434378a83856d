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
    // Timeouts guard against a hang, never time a speed: with three files at once a test can take 2-3 times as long
    // as alone (a run with four at once saw 52 s of a 60-s limit, 119 s of 120), so they allow minutes.
    testTimeout: 180_000,
    hookTimeout: 240_000,
    include: ['test/**/*.test.ts'],
    // npm run test:stress (vitest.stress.config.ts).
    exclude: ['test/stress/**', '**/node_modules/**'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
