// One rule for a finished command's exit code, shared by Bash and background shells.
import { constants } from 'node:os';

/** The exit code, else 128 + the signal's number when a signal ended it (as a shell reports it), else 1. */
export function exitCodeOf(exitCode: number | null, signal: NodeJS.Signals | null | undefined): number {
  if (exitCode !== null) return exitCode;
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return 1;
}
