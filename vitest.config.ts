import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn real processes; two cores do not want more than two files at once.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
