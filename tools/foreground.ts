// Foreground work a host may move to the background, and the switch that turns background work
// off: part of the tool contract. The session implements ForegroundService (src/tasks/foreground.ts);
// Bash, Monitor and the subagent runner ask backgroundTasksDisabled before anything runs in the
// background.

export interface ForegroundEntry {
  /** The tool_use that started it. */
  toolUseId: string;
  kind: 'local_bash' | 'local_agent';
  /** Move it: the call returns at once and the work becomes a background task. Called once. */
  background(): void;
}

/** The main thread's blocking calls, which a host may move to the background (background_tasks). */
export interface ForegroundService {
  /** Register a running blocking call; the returned function removes it (call it when the call ends). */
  enter(entry: ForegroundEntry): () => void;
}

/** `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`: nothing may run in the background in this session. */
export function backgroundTasksDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CLAUDE_CODE_DISABLE_BACKGROUND_TASKS;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

export const BACKGROUND_DISABLED_MESSAGE =
  'background tasks are disabled in this session (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS)';
