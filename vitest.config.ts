import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// Files that spend most of their time waiting on the clock (cron fires on the minute, a wakeup
// waits 60 s): started first, so their waits overlap the rest of the suite instead of ending it
// with one worker idle. Every test that waits on the clock lives in the one file, concurrently: two
// such files held both workers for their first minute while the CPU sat mostly idle.
const WAITING_FILES = ['test/e2e/schedule.test.ts'];

class WaitersFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (f: TestSpecification) => WAITING_FILES.some((w) => f.moduleId.endsWith(w));
    return [...sorted.filter(waits), ...sorted.filter((f) => !waits(f))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn real processes; two cores do not want more than two files at once.
    maxWorkers: 2,
    minWorkers: 1,
    // A fresh TMPDIR for the run (inherited by every process a test starts); the run fails if
    // anything is left in it at the end.
    globalSetup: ['test/globalSetup.ts'],
    // A worker loads each module once for all the files it runs, instead of once per file: this
    // cuts the suite's CPU time by about a quarter (collection was most of it). Per-file clean-up
    // and the environment's reset live in test/setup.ts, which runs for every file.
    isolate: false,
    sequence: { sequencer: WaitersFirst },
    setupFiles: ['test/setup.ts'],
  },
});
