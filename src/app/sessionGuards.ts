// The session's guards (permissions, hooks, host questions: src/session/guards.ts) wired to this
// session: the MCP permission-prompt tool, hook events and system messages as notices.
import type { ControlChannel } from '../control/channel.js';
import { isMcpPromptTool, mcpPermissionPrompt } from '../mcp/permissionPromptTool.js';
import type { SessionMcp } from '../mcp/sessionMcp.js';
import type { CliOptions } from '../cli/options.js';
import type { SessionEvent } from '../session/events.js';
import { type Guards, setupGuards, StartupError } from '../session/guards.js';
import type { SessionStart } from '../session/resume.js';
import type { LoadedSettings } from '../settings/index.js';
import { logWarning } from '../util/log.js';

export function startGuards(
  o: CliOptions,
  p: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    start: SessionStart;
    channel: ControlChannel;
    loaded: LoadedSettings;
    mcp: SessionMcp;
    emit: (event: SessionEvent) => Promise<void>;
  },
): Guards {
  const promptTool = o.permissionPromptTool;
  try {
    return setupGuards(o, {
      cwd: p.cwd,
      env: p.env,
      sessionId: p.start.sessionId,
      transcriptPath: p.start.transcript?.path ?? '',
      startSource: p.start.source,
      channel: p.channel,
      loaded: p.loaded,
      askMcpTool:
        promptTool && isMcpPromptTool(promptTool)
          ? mcpPermissionPrompt(promptTool, (args, signal) => p.mcp.callByName(promptTool, args, signal))
          : undefined,
      // As the SDK documents: SessionStart (and Setup) hook runs are reported even without the flag.
      onHookEvent: (event) => {
        if (o.includeHookEvents || event.hook.hookEvent === 'SessionStart' || event.hook.hookEvent === 'Setup')
          void p.emit({ type: 'notice', notice: { subtype: 'hook', event } });
      },
      onSystemMessage: (message) => {
        logWarning(`hook: ${message}`);
        void p.emit({ type: 'notice', notice: { subtype: 'hook_system_message', message } });
      },
    });
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError((err as Error).message, 1);
  }
}
