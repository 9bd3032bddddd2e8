// What this process did or started that may have changed files on disk: every shell command
// (Bash, background shells, hooks, `!` lines) while it runs, and each tool call that is not
// read-only. The Bash sandbox prepares the next command's wrap while the session is idle and
// reuses it only if nothing here moved since (src/sandbox/preparedWrap.ts).

export class FileActivity {
  /** Bumped by every change, start and end: equal generations mean nothing happened between. */
  generation = 0;
  /** Shell commands of ours running now. */
  running = 0;

  /** Something of ours may have changed files (a Write, an Edit, a rewind, an MCP tool call). */
  changed(): void {
    this.generation++;
  }

  /** A shell command starts: until it ends it may change files at any moment. */
  started(): void {
    this.running++;
    this.generation++;
  }

  ended(): void {
    this.running = Math.max(0, this.running - 1);
    this.generation++;
  }
}

/** The process's one record (tests of the consumers inject their own). */
export const fileActivity = new FileActivity();
