// The main thread's blocking Bash calls and subagents while they run, so a host can move them to
// the background (the `background_tasks` control request, Ctrl+B in the reference): the blocking
// call returns at once with a "running in the background" result, and the work goes on as a task
// of the registry, which reports its end with task_notification.

import type { ForegroundEntry, ForegroundService } from '../../tools/foreground.js';

export class ForegroundTasks implements ForegroundService {
  private readonly entries = new Map<string, ForegroundEntry>();

  enter(entry: ForegroundEntry): () => void {
    this.entries.set(entry.toolUseId, entry);
    return () => {
      if (this.entries.get(entry.toolUseId) === entry) this.entries.delete(entry.toolUseId);
    };
  }

  /** Move the one started by `toolUseId`, or every one; how many moved. */
  background(toolUseId?: string): number {
    const picked =
      toolUseId === undefined
        ? [...this.entries.values()]
        : [this.entries.get(toolUseId)].filter((e): e is ForegroundEntry => !!e);
    for (const e of picked) {
      this.entries.delete(e.toolUseId);
      e.background();
    }
    return picked.length;
  }

  get size(): number {
    return this.entries.size;
  }
}
