// The session's folder under the temp dir: large tool outputs, background task output files, file
// checkpoints of a session without a transcript, the sandbox's TMPDIR for commands. It lives as
// long as the agent process: removed at exit, so sessions do not pile folders up in TMPDIR.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function sessionTmpDir(sessionId: string): string {
  return join(tmpdir(), `agent-runtime-${sessionId}`);
}

/**
 * Removes the session's temp folder when the process exits (any exit but SIGKILL). Register it
 * after the handlers that kill the session's processes, so nothing writes into it afterwards.
 */
export function removeSessionTmpDirAtExit(sessionId: string): void {
  const dir = sessionTmpDir(sessionId);
  process.once('exit', () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A file still held open elsewhere: leaving the folder is all it costs.
    }
  });
}
