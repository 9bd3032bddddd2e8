// The session transcript: one JSON line per message, under
// $CLAUDE_CONFIG_DIR/projects/<cwd with / replaced by ->/<session>.jsonl, where hooks
// (transcript_path) and people can read it. Appended synchronously so an exit loses nothing.
// Streaming deltas are not kept; everything else the host saw is, plus the prompts.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export function transcriptPath(env: NodeJS.ProcessEnv, cwd: string, sessionId: string): string {
  const configDir = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(configDir, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${sessionId}.jsonl`);
}

export class Transcript {
  /** Opened on the first entry and kept open: one write per entry, no open/close each time. */
  private fd: number | undefined;
  private failed = false;

  constructor(readonly path: string) {}

  append(entry: object): void {
    this.appendRaw({ ...entry, timestamp: new Date().toISOString() });
  }

  /** One entry as is (a fork copies lines with their original timestamps). */
  appendRaw(entry: object): void {
    if (this.failed) return;
    let line: string;
    try {
      line = JSON.stringify(entry) + '\n';
    } catch (err) {
      // One entry that cannot be serialised costs that entry, not the rest of the transcript.
      process.stderr.write(`agent: a transcript entry was left out: ${(err as Error).message}\n`);
      return;
    }
    try {
      if (this.fd === undefined) {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        this.fd = openSync(this.path, 'a', 0o600);
      }
      writeSync(this.fd, line);
    } catch (err) {
      // A read-only home must not stop the run; say so once.
      this.failed = true;
      process.stderr.write(`agent: cannot write the transcript ${this.path}: ${(err as Error).message}\n`);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
