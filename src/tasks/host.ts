// What the session runner needs of background work: is any still going, which notices wait for
// the model, and a way to stop it all. (Its spend is in the session's ledger as it is made.)
import { eventNoticeText, noticeText, type TaskRecord, type TaskRegistry } from './registry.js';

export interface BackgroundHost {
  /** A task is running, or an ended task's notice still waits for the model. */
  busy(): boolean;
  /** The notices the model has not had, as one user turn (`<task-notification>` blocks); null when none. */
  takeNotice(): string | null;
  /** Resolves when a task ends, or after `ms`. */
  waitForChange(ms: number): Promise<void>;
  /** Stop every running task but those `spare` keeps; each is reported as stopped. */
  stopAll(spare?: (task: TaskRecord) => boolean): Promise<void>;
}

export function createBackgroundHost(registry: TaskRegistry): BackgroundHost {
  return {
    // Teammates live on between messages: the team decides when they end (src/teams).
    busy: () => registry.hasRunning((t) => t.kind !== 'in_process_teammate') || registry.hasNotices(),
    takeNotice() {
      // A task's events come before its end (a Monitor's last lines, then its exit).
      const events = registry.takeEvents();
      const tasks = registry.takeNotices();
      const parts = [...(events.length ? [eventNoticeText(events)] : []), ...(tasks.length ? [noticeText(tasks)] : [])];
      return parts.length ? parts.join('\n') : null;
    },
    waitForChange: (ms) => registry.waitForChange(ms),
    stopAll: (spare) => registry.stopAll(1000, spare),
  };
}
