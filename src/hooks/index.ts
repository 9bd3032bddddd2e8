export {
  HookRunner,
  type HookRunnerOptions,
  type HookRunOptions,
  type CommandHooksConfig,
  type HookRunEvent,
} from './hookRunner.js';
export type { CallHost } from './callbackHooks.js';
export {
  HOOK_EVENTS,
  TOOL_EVENTS,
  DEFAULT_HOOK_TIMEOUT_MS,
  callbackHooksSchema,
  hookOutputSchema,
  isHookEvent,
  type BaseHookInput,
  type CallbackHooksConfig,
  type HookEvent,
  type HookOutcome,
  type HookOutput,
  type PermissionRequestAnswer,
} from './events.js';
