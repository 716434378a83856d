import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // uWS is a native addon: keep each test file in its own process.
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    include: ['test/**/*.test.ts'],
    // npm run test:stress (vitest.stress.config.ts).
    exclude: ['test/stress/**', '**/node_modules/**'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
