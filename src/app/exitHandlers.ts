// SIGINT/SIGTERM: interrupt the run (its result comes within a second), kill every child process
// group, flush, exit 130/143. The host vanishing (EPIPE on stdout): the same, without the writing.
import type { StdoutWriter } from '../protocol/writer.js';
import type { SessionRunner } from '../session/runner.js';
import { killAllGroups } from '../util/processGroup.js';
import { withTimeout } from '../util/withTimeout.js';

/** How long a signal waits for background tasks to stop and for the interrupted result. */
const STOP_GRACE_MS = 1500;

export function installExitHandlers(
  runner: SessionRunner,
  writer: StdoutWriter,
  stopTasks?: () => Promise<void>,
  killMcp: () => void = () => {},
  /** Telemetry's last export (bounded by its own timeout). */
  flushTelemetry: () => Promise<void> = async () => {},
): { dispose(): void } {
  let exiting = false;
  const within = (p: Promise<unknown>) => withTimeout(p, STOP_GRACE_MS);
  const finish = async (code: number, waitForResult: boolean) => {
    if (exiting) return;
    exiting = true;
    runner.endInput();
    const wasRunning = runner.interrupt();
    // Background tasks are stopped and reported as stopped before their processes are killed.
    if (stopTasks && waitForResult) await within(stopTasks());
    killAllGroups();
    if (wasRunning && waitForResult) await within(runner.whenIdle());
    killAllGroups();
    killMcp();
    await writer.flush(1000);
    await flushTelemetry();
    process.exit(code);
  };
  const onSigint = () => void finish(130, true);
  const onSigterm = () => void finish(143, true);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  writer.onHostGone(() => void finish(1, false));
  process.on('exit', () => {
    killAllGroups();
    killMcp();
  });
  return {
    dispose() {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    },
  };
}
