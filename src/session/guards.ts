// Settings, permissions and hooks for one session, wired to the host: what the tool pipeline and
// the runner need to guard every tool call and every prompt. Built once at start; a broken
// settings file or a forbidden mode stops the start with a clear message, never half a config.
import type { ControlChannel } from '../control/channel.js';
import { callbackHooksSchema, HookRunner, type HookRunEvent } from '../hooks/index.js';
import type { AskHostAnswer, AskHostRequest, PipelineDeps } from '../loop/toolPipeline.js';
import type { StopHookVerdict } from '../loop/agentLoop.js';
import { createPermissionState, type PermissionMode, type PermissionState } from '../permissions/index.js';
import {
  loadSettings,
  type LoadedFile,
  type LoadedSettings,
  type Settings,
  type SettingSource,
  projectRootOf,
} from '../settings/index.js';
import { StartupError } from '../util/startupError.js';
import { logWarning } from '../util/log.js';
import { bypassAloneAllowed } from '../permissions/modes.js';
import { permissionTimeoutMs } from '../permissions/timeout.js';

/** Callback hooks carry their own timeout; this bounds the control request itself. */
const HOOK_CALLBACK_TIMEOUT_MS = 10 * 60_000;

export { StartupError };

export interface GuardContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  sessionId: string;
  transcriptPath: string;
  /** SessionStart hooks' source: 'resume' for --resume / --continue. */
  startSource?: 'startup' | 'resume';
  channel: ControlChannel;
  /** Hooks' systemMessage lines and warnings, for the host and the person. */
  onSystemMessage: (message: string) => void;
  /** The settings loaded at start (loadSessionSettings). */
  loaded: LoadedSettings;
  /** --include-hook-events: where hook_started / hook_progress / hook_response go. */
  onHookEvent?: (event: HookRunEvent) => void;
  /** `--permission-prompt-tool mcp__server__tool`: that MCP tool answers what would be asked. */
  askMcpTool?: (req: AskHostRequest, signal: AbortSignal) => Promise<AskHostAnswer>;
}

export interface Guards {
  permissions: PermissionState;
  hooks: HookRunner;
  /** The loaded settings files, lowest precedence first (the sandbox reads its key from them). */
  settingsFiles: LoadedFile[];
  /** Every allow and deny rule of the session (settings and flags), as written. */
  rules: { allow: string[]; deny: string[] };
  /** What every tool call of this session passes through (subagents inherit it). */
  pipeline: Omit<PipelineDeps, 'tools'>;
  /** initialize: the host's callback hooks. */
  setHostHooks(hooks: unknown): void;
  /** UserPromptSubmit (and SessionStart before the first prompt). */
  beforePrompt(prompt: unknown, signal: AbortSignal): Promise<{ blockReason?: string; additionalContext?: string[] }>;
  /** `state`: what is still to come (Stop's `background_tasks` and `session_crons`), read only when a Stop hook runs. */
  stopHook(stopHookActive: boolean, signal: AbortSignal, state?: () => object): Promise<StopHookVerdict | undefined>;
  sessionEnd(reason: string): Promise<void>;
}

/** What guards a session: the settings to load and the permission flags (the session takes no CLI options). */
export interface GuardOptions {
  settings?: string;
  /** `--project-config-root`: where the project and local settings files are read. */
  projectConfigRoot?: string;
  /** `--managed-settings`: policy settings (else the managed file). */
  managedSettings?: string;
  permissionPromptTool?: string;
  /** `--permission-prompts none`: no one answers permission prompts (the SDK's permissionPrompts). */
  permissionPrompts?: 'host' | 'none';
  permissionMode?: PermissionMode;
  dangerouslySkipPermissions: boolean;
  allowDangerouslySkipPermissions: boolean;
  allowedTools: string[];
  disallowedTools: string[];
  addDir: string[];
}

/**
 * The session's settings files (user, project, local, --settings, managed). A broken one:
 * StartupError. `sources`: --setting-sources as openSession parsed it (the config's `sources`).
 */
export function loadSessionSettings(
  o: GuardOptions,
  cwd: string,
  env: NodeJS.ProcessEnv,
  sources: SettingSource[],
  flagLayer?: Settings,
): LoadedSettings {
  try {
    return loadSettings({
      cwd,
      env,
      sources,
      settingsArg: o.settings,
      projectRoot: projectRootOf(cwd, o.projectConfigRoot),
      managedArg: o.managedSettings,
      flagLayer,
    });
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError((err as Error).message, 1);
  }
}

export function setupGuards(o: GuardOptions, ctx: GuardContext): Guards {
  const loaded = ctx.loaded;
  if (o.permissionPromptTool !== undefined && o.permissionPromptTool !== 'stdio' && !ctx.askMcpTool)
    throw new StartupError(
      `--permission-prompt-tool ${o.permissionPromptTool}: expected "stdio" (ask the host) or an MCP tool named mcp__<server>__<tool>`,
      2,
    );

  const managed = loaded.files.find((f) => f.source === 'managed')?.settings.permissions as
    | Record<string, unknown>
    | undefined;
  const bypassDisabled = managed?.disableBypassPermissionsMode === 'disable';
  if (bypassDisabled && (o.dangerouslySkipPermissions || o.permissionMode === 'bypassPermissions'))
    throw new StartupError(
      'bypassPermissions is disabled by the managed settings (permissions.disableBypassPermissionsMode)',
      2,
    );
  const optedIn = o.dangerouslySkipPermissions || o.allowDangerouslySkipPermissions;
  if (o.permissionMode === 'bypassPermissions' && !optedIn && !bypassAloneAllowed(ctx.env))
    throw new StartupError(
      '--permission-mode bypassPermissions on its own is refused for root outside a sandbox: set IS_SANDBOX=1 if this is a container or VM, or pass --dangerously-skip-permissions',
      2,
    );
  const allowBypass = !bypassDisabled && (optedIn || o.permissionMode === 'bypassPermissions');
  const mode: PermissionMode =
    o.permissionMode ??
    (o.dangerouslySkipPermissions
      ? 'bypassPermissions'
      : ((loaded.permissions.defaultMode as PermissionMode | undefined) ?? 'default'));
  let permissions: PermissionState;
  try {
    permissions = createPermissionState({
      mode,
      allow: [...loaded.permissions.allow, ...o.allowedTools],
      deny: [...loaded.permissions.deny, ...o.disallowedTools],
      ask: loaded.permissions.ask,
      additionalDirectories: [...loaded.permissions.additionalDirectories, ...o.addDir],
      cwd: ctx.cwd,
      allowBypass,
    });
  } catch (err) {
    throw new StartupError((err as Error).message, 2);
  }

  const warn = (msg: string) => logWarning(`${msg}`);
  const hooks = new HookRunner({
    commandHooks: loaded.hooks as never,
    onHookEvent: ctx.onHookEvent,
    onWarning: warn,
    base: () => ({
      session_id: ctx.sessionId,
      transcript_path: ctx.transcriptPath,
      cwd: ctx.cwd,
      permission_mode: permissions.mode,
    }),
  });
  const callHost = (callbackId: string, input: object, toolUseId: string | undefined, signal: AbortSignal) =>
    ctx.channel.request(
      'hook_callback',
      { callback_id: callbackId, input, tool_use_id: toolUseId },
      { timeoutMs: HOOK_CALLBACK_TIMEOUT_MS, signal },
    );

  const askHost =
    ctx.askMcpTool ??
    (o.permissionPromptTool === 'stdio'
      ? async (req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer> => {
          const answer = (await ctx.channel.request(
            'can_use_tool',
            { ...req },
            { timeoutMs: permissionTimeoutMs(), signal },
          )) as Record<string, unknown>;
          return normalizeAnswer(answer, req);
        }
      : undefined);

  let sessionStarted = false;
  return {
    permissions,
    hooks,
    settingsFiles: loaded.files,
    rules: {
      allow: [...loaded.permissions.allow, ...o.allowedTools],
      deny: [...loaded.permissions.deny, ...o.disallowedTools],
    },
    pipeline: {
      permissions,
      hooks,
      askHost,
      noApprovalSurface: o.permissionPrompts === 'none',
      onSystemMessage: ctx.onSystemMessage,
      onWarning: warn,
    },
    setHostHooks(value) {
      const parsed = callbackHooksSchema.safeParse(value ?? {});
      if (!parsed.success) throw new Error(`initialize: hooks: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      hooks.setCallbackHooks(parsed.data, callHost);
    },
    async beforePrompt(prompt, signal) {
      const context: string[] = [];
      if (!sessionStarted) {
        sessionStarted = true;
        if (hooks.has('SessionStart')) {
          const source = ctx.startSource ?? 'startup';
          const start = await hooks.run('SessionStart', { source }, { matchValue: source, signal });
          report(start.systemMessages);
          context.push(...start.additionalContext);
        }
      }
      if (hooks.has('UserPromptSubmit')) {
        const text = typeof prompt === 'string' ? prompt : promptText(prompt);
        const gate = await hooks.run('UserPromptSubmit', { prompt: text }, { signal });
        report(gate.systemMessages);
        if (gate.blockReason !== undefined || gate.stop) return { blockReason: gate.blockReason ?? gate.stop!.reason };
        context.push(...gate.additionalContext);
      }
      return { additionalContext: context };
    },
    async stopHook(stopHookActive, signal, state) {
      if (!hooks.has('Stop')) return undefined;
      const out = await hooks.run('Stop', { stop_hook_active: stopHookActive, ...state?.() }, { signal });
      report(out.systemMessages);
      if (out.stop) return { preventContinuation: out.stop.reason };
      if (out.blockReason !== undefined) return { blockReason: out.blockReason };
      return undefined;
    },
    async sessionEnd(reason) {
      if (!hooks.has('SessionEnd')) return;
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 5000);
      try {
        await hooks.run('SessionEnd', { reason }, { matchValue: reason, signal: ac.signal });
      } finally {
        clearTimeout(timer);
      }
    },
  };

  function report(messages: string[]): void {
    for (const m of messages) ctx.onSystemMessage(m);
  }
}

function promptText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (b): b is { type: 'text'; text: string } =>
        !!b && typeof b === 'object' && (b as { type?: unknown }).type === 'text',
    )
    .map((b) => b.text)
    .join('\n');
}

/** The host's answer to can_use_tool, in today's shape or the older {allowed} one. */
function normalizeAnswer(answer: Record<string, unknown>, req: AskHostRequest): AskHostAnswer {
  const behavior =
    answer.behavior ?? (answer.allowed === true ? 'allow' : answer.allowed === false ? 'deny' : undefined);
  if (behavior === 'allow') {
    const updatedInput =
      answer.updatedInput && typeof answer.updatedInput === 'object'
        ? (answer.updatedInput as Record<string, unknown>)
        : undefined;
    return {
      behavior: 'allow',
      updatedInput: updatedInput ?? (req.input as Record<string, unknown>),
      updatedPermissions: Array.isArray(answer.updatedPermissions) ? answer.updatedPermissions : undefined,
    };
  }
  if (behavior === 'deny')
    return {
      behavior: 'deny',
      message:
        typeof answer.message === 'string' && answer.message
          ? answer.message
          : typeof answer.reason === 'string'
            ? answer.reason
            : 'Permission denied by the host',
      interrupt: answer.interrupt === true,
    };
  return {
    behavior: 'deny',
    message: `The host answered can_use_tool without a valid behavior: ${JSON.stringify(answer).slice(0, 200)}`,
  };
}
