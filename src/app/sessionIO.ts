// What a mode (src/modes/) gives a session, and what it gets back.
import type { Tool, ToolServices } from '../../tools/tool.js';
import type { ControlChannel } from '../control/channel.js';
import type { PermissionMode } from '../permissions/modes.js';
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import type { StdoutWriter } from '../protocol/writer.js';
import type { SessionEvent } from '../session/events.js';
import type { SessionRunner, SessionSettings } from '../session/runner.js';
import type { WireLine } from '../session/wire.js';
import type { SlashCommandInfo } from '../commands/slashCommands.js';
import type { MirrorSink } from '../transcript/mirror.js';

/** What the mode gives the session. */
export interface SessionIO {
  writer: StdoutWriter;
  /**
   * Where the session's events go: protocol lines, a result collector, the terminal. `line` is the
   * event's protocol line (null for one a host does not see in this mode).
   */
  output: (event: SessionEvent, line: WireLine | null) => Promise<void>;
  /** A person at a terminal: partial messages always on (the text is drawn as it streams). */
  interactive?: boolean;
  /** Permission questions asked here instead of the host (the terminal). */
  askHost?: (req: AskHostRequest, signal: AbortSignal) => Promise<AskHostAnswer>;
  /** MCP elicitation forms answered here instead of the host (the terminal): the `elicitation` payload in, its answer out. */
  elicit?: (payload: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;
  /** Where an error result's reason is told (default: stderr). */
  reportError?: (text: string) => void;
  /** --session-mirror: where each transcript entry goes once written locally (src/modes/sessionMirror.ts). */
  mirror?: MirrorSink;
  /** A teammate process (src/modes/teammate.ts): its extra tools, and the team its tools reach. */
  teammate?: { tools: Tool[]; services: Pick<ToolServices, 'team' | 'teamMember' | 'taskList'> };
}

export interface Session {
  runner: SessionRunner;
  channel: ControlChannel;
  settings: SessionSettings;
  /** The model "Default" names (SessionConfig.defaultModel), whatever the session runs now. */
  defaultModel: string;
  /** Tells one event the way the session's own go (transcript, output). */
  emit: (event: SessionEvent) => Promise<void>;
  permissionMode(): string;
  /** The terminal's Shift+Tab: the mode for the next tool call (bypassPermissions only when allowed). */
  setPermissionMode(mode: PermissionMode): void;
  /** --dangerously-skip-permissions or --allow-dangerously-skip-permissions was given. */
  bypassAllowed: boolean;
  /** The slash commands the session runs (the terminal UI's `/` menu). */
  commands(): SlashCommandInfo[];
  /** The files a call of the session's tool of this name declares it edits (the terminal draws such calls as diffs); undefined if it is no file edit. */
  editedFiles(name: string, input: unknown): readonly string[] | undefined;
  /** A resumed conversation's tool results as the tools gave them, by tool_use id (the UI's diffs). */
  resumedToolResults: ReadonlyMap<string, unknown>;
  /** Seconds the person spent typing in the terminal UI (telemetry's active time of type `user`). */
  userActiveTime(seconds: number): void;
  /** After the input has ended and the runner is done: SessionEnd hooks, MCP servers closed. */
  close(reason: 'prompt_input_exit' | 'other'): Promise<void>;
}
