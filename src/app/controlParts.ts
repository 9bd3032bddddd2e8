// The assembled session's parts, as the control requests reach them (controlTarget.ts, initializeTarget.ts).
import type { AgentSetup } from './agentSetup.js';
import type { SlashCommands } from '../commands/slashCommands.js';
import type { ControlChannel } from '../control/channel.js';
import type { ModelApi } from '../loop/modelClient.js';
import type { McpPolicy } from '../mcp/policy.js';
import type { SessionMcp } from '../mcp/sessionMcp.js';
import type { CliOptions } from '../cli/options.js';
import type { SystemPromptParts } from '../prompt/systemPrompt.js';
import type { StdoutWriter } from '../protocol/writer.js';
import type { Guards } from '../session/guards.js';
import type { SessionRunner, SessionSettings } from '../session/runner.js';
import type { SessionControls } from '../session/sessionControls.js';
import type { LoadedSettings } from '../settings/index.js';
import type { Transcript } from '../transcript/transcript.js';
import type { MainAgent } from './mainAgentSetup.js';
import type { SessionOutputStyles } from './outputStyles.js';
import type { HostSetup, SessionConfig } from './sessionConfig.js';
import type { SessionPlugins } from './sessionPlugins.js';
import type { SessionTools } from './sessionTools.js';

/** Every part of the assembled session a control request reaches. */
export interface ControlParts {
  o: CliOptions;
  env: NodeJS.ProcessEnv;
  writer: StdoutWriter;
  config: SessionConfig;
  /** The session's Messages API: the ids initialize names. */
  api: ModelApi;
  loaded: LoadedSettings;
  host: HostSetup;
  channel: ControlChannel;
  transcript: Transcript | null;
  systemParts: SystemPromptParts;
  settings: SessionSettings;
  tools: SessionTools;
  mcp: SessionMcp;
  policy: McpPolicy;
  agents: AgentSetup;
  guards: Guards;
  slash: SlashCommands;
  outputStyles: SessionOutputStyles;
  plugins: SessionPlugins;
  mainAgent: MainAgent;
  runner: SessionRunner;
  /** The file and context controls. */
  controls: SessionControls;
}
