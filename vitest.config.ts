import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn real processes and the suite is bound by their CPU. Two workers left
    // the two cores idle about a tenth of the run (a worker waiting on its agents while the other's
    // file had little to do); three keep them busy: 268 -> 229 s in back-to-back runs. Four failed
    // timing windows. Tests that mostly wait run side by side inside their file instead.
    maxWorkers: 3,
    // As many as maxWorkers: vitest 3.2 (tinypool) ends a worker above minWorkers once it idles,
    // and one ended so near the end of a run failed it with "Terminating worker thread" and no
    // summary (seen with three workers and minWorkers 1).
    minWorkers: 3,
    // A fresh TMPDIR for the run (inherited by every process a test starts); the run fails if
    // anything is left in it at the end.
    globalSetup: ['test/globalSetup.ts'],
    // A worker loads each module once for all the files it runs, instead of once per file: this
    // cuts the suite's CPU time by about a quarter (collection was most of it). Per-file clean-up
    // and the environment's reset live in test/setup.ts, which runs for every file.
    isolate: false,
    setupFiles: ['test/setup.ts'],
  },
});
