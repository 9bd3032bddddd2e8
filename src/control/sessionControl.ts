// Every control request a session answers, bound in one place to a narrow view of the session:
// the session (src/app) implements `ControlledSession`; the handlers know nothing else of it.
import type { ForegroundTasks } from '../tasks/foreground.js';
import type { TaskRegistry } from '../tasks/registry.js';
import type { ControlChannel } from './channel.js';
import { type ControlTarget, registerControlHandlers } from './handlers.js';
import { type McpControlTarget, registerMcpControlHandlers } from './mcpHandlers.js';
import { type PluginControlTarget, registerPluginControlHandlers } from './pluginHandlers.js';
import { registerSessionControlHandlers, type SessionControlTarget } from './sessionHandlers.js';
import { registerSettingsControlHandlers, type SettingsControlDeps } from './settingsHandlers.js';
import { registerTaskControlHandlers } from './taskHandlers.js';

export interface SkillListing {
  name: string;
  description: string;
  argumentHint: string;
}

export interface ControlledSession extends ControlTarget {
  /** reload_output_styles: the style folders read again; every style there is now. */
  reloadOutputStyles(): Promise<string[]>;
  /** reload_skills: the skill folders read again; what is now enabled. */
  reloadSkills(): Promise<SkillListing[]>;
  tasks: { registry: TaskRegistry; foreground: ForegroundTasks };
  settings: SettingsControlDeps;
  mcp: McpControlTarget;
  /** rewind_files, get_context_usage, read_file, seed_read_state. */
  files: SessionControlTarget;
  /** reload_plugins. */
  plugins: PluginControlTarget;
}

export function bindSessionControl(channel: ControlChannel, session: ControlledSession): void {
  registerControlHandlers(channel, session);
  registerTaskControlHandlers(channel, session.tasks.registry, session.tasks.foreground);
  channel.on('reload_output_styles', async () => ({ available_output_styles: await session.reloadOutputStyles() }));
  // The next turn offers the reloaded skills (the Skill tool too, if it was not offered).
  channel.on('reload_skills', async () => ({ skills: await session.reloadSkills() }));
  registerSettingsControlHandlers(channel, session.settings);
  registerMcpControlHandlers(channel, session.mcp);
  registerSessionControlHandlers(channel, session.files);
  registerPluginControlHandlers(channel, session.plugins);
}
