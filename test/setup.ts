// Runs before each test file (vitest setupFiles, re-run per file even with isolate: false). Its
// hooks are registered before the file's own, so they run after them: the helpers' clean-up once a
// file's processes are stopped, and the environment back as it was before the file, so one file's
// process.env changes never reach the next file in the same worker.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { runAfterFile, runAfterTest } from './perFile.js';

let envBefore: NodeJS.ProcessEnv = {};

// AGENT_TEST_CPU_LOG=<file>: one JSON line per test file with its wall time and the CPU seconds of
// its worker and of the processes it started (counted once they are reaped), to find where the
// suite's time goes. Read from /proc, so Linux only.
const cpuLog = process.env.AGENT_TEST_CPU_LOG;
const ticks = (): number[] => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map(Number);
};
let fileStart: { at: number; cpu: number[] } | undefined;

beforeAll(() => {
  envBefore = { ...process.env };
  if (cpuLog) fileStart = { at: Date.now(), cpu: ticks() };
});

afterEach(() => runAfterTest());

afterAll(async () => {
  await runAfterFile();
  if (cpuLog && fileStart) {
    const d = ticks().map((t, i) => (t - fileStart!.cpu[i]!) / 100);
    const file = expect.getState().testPath ?? '?';
    const line = {
      file,
      start: fileStart.at,
      worker: process.pid,
      wall: (Date.now() - fileStart.at) / 1000,
      self: d[0]! + d[1]!,
      children: d[2]! + d[3]!,
    };
    appendFileSync(cpuLog, `${JSON.stringify(line)}\n`);
  }
  for (const k of Object.keys(process.env)) if (!(k in envBefore)) delete process.env[k];
  Object.assign(process.env, envBefore);
});
