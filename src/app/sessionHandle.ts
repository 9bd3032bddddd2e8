// The assembled session as its mode drives it (the Session of sessionIO.ts): the runner and the
// control channel, what the terminal asks of it, and its end — the exit handlers installed for
// SIGINT, SIGTERM and a host gone, and close, which ends what the session started.
import { builtinTools, findTool } from '../../tools/registry.js';
import type { Tool } from '../../tools/tool.js';
import { editedFiles } from '../../tools/toolCall.js';
import type { SlashCommands } from '../commands/slashCommands.js';
import type { ControlChannel } from '../control/channel.js';
import type { SessionMcp } from '../mcp/sessionMcp.js';
import type { PeerDirectory } from '../peers/peerDirectory.js';
import type { StdoutWriter } from '../protocol/writer.js';
import type { Guards } from '../session/guards.js';
import type { SessionStart } from '../session/resume.js';
import type { SessionRunner, SessionSettings } from '../session/runner.js';
import type { WorktreeSession } from '../worktrees/session.js';
import { logWarning } from '../util/log.js';
import type { AgentSetup } from './agentSetup.js';
import { installExitHandlers } from './exitHandlers.js';
import type { SessionEvents } from './sessionEvents.js';
import type { Session } from './sessionIO.js';
import type { SessionTelemetry } from './sessionTelemetry.js';
import type { SessionTools } from './sessionTools.js';

export function sessionHandle(p: {
  runner: SessionRunner;
  writer: StdoutWriter;
  channel: ControlChannel;
  settings: SessionSettings;
  defaultModel: string;
  emit: SessionEvents['emit'];
  start: SessionStart;
  tools: SessionTools;
  slash: SlashCommands;
  guards: Guards;
  agents: AgentSetup;
  mcp: SessionMcp;
  telemetry: SessionTelemetry;
  peers: PeerDirectory | undefined;
  worktrees: WorktreeSession;
}): Session {
  const { runner, guards, mcp, telemetry, tools } = p;
  const exitOn = installExitHandlers(
    runner,
    p.writer,
    () => p.agents.registry.stopAll(),
    () => mcp.killAll(),
    () => telemetry.telemetry.shutdown(),
  );
  return {
    runner,
    channel: p.channel,
    settings: p.settings,
    defaultModel: p.defaultModel,
    emit: p.emit,
    permissionMode: () => guards.permissions.mode,
    setPermissionMode: (mode) => guards.permissions.setMode(mode),
    bypassAllowed: guards.permissions.allowBypass,
    commands: () => p.slash.list(),
    // A resumed conversation may hold calls of a built-in this session does not offer (--tools,
    // --disallowedTools, an --agent's list): their diffs are still drawn.
    editedFiles: (name, input) => editedFiles(findTool(tools.tools.list(), name) ?? findTool(builtins(), name), input),
    resumedToolResults: p.start.toolResults ?? new Map(),
    userActiveTime: (seconds) => telemetry.telemetry.activeTime(seconds, 'user'),
    async close(reason) {
      exitOn.dispose();
      p.peers?.unregister();
      await guards.sessionEnd(reason);
      const kept = await p.worktrees.close();
      if (kept) logWarning(kept);
      await mcp.closeAll();
      await telemetry.telemetry.shutdown();
    },
  };
}

let builtinList: Tool[] | undefined;
/** The built-in tools, made once, for what a call of one of them declares. */
function builtins(): Tool[] {
  builtinList ??= builtinTools();
  return builtinList;
}
