// Runs before each test file (vitest setupFiles, re-run per file even with isolate: false). Its
// hooks are registered before the file's own, so they run after them: the helpers' clean-up once a
// file's processes are stopped, and the environment back as it was before the file, so one file's
// process.env changes never reach the next file in the same worker.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { runAfterFile, runAfterTest } from './perFile.js';

let envBefore: NodeJS.ProcessEnv = {};

beforeAll(() => {
  envBefore = { ...process.env };
});

afterEach(() => runAfterTest());

afterAll(async () => {
  await runAfterFile();
  for (const k of Object.keys(process.env)) if (!(k in envBefore)) delete process.env[k];
  Object.assign(process.env, envBefore);
});
