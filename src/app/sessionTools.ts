// The session's tools: the plugins of --plugin-dir, the skills of the setting sources and plugins,
// the built-in tools --tools and --disallowedTools select (Skill when there are skills), and
// StructuredOutput for --json-schema. Later changes (MCP servers, plugins, skills, --agent) go
// through the ToolSet.
import { builtinTools } from '../../tools/registry.js';
import { makeSkillTool } from '../../tools/skill.js';
import { createStructuredOutputTool } from '../../tools/structuredOutput.js';
import type { Tool } from '../../tools/tool.js';
import { ToolSet } from '../../tools/toolSet.js';
import type { CliOptions } from '../cli/options.js';
import { PluginError } from '../plugins/manifest.js';
import { PluginSet } from '../plugins/pluginSet.js';
import { StartupError } from '../session/guards.js';
import { SkillCatalog } from '../skills/catalog.js';
import type { SkillEntry } from '../../tools/skill.js';
import type { SubagentSummary } from '../../tools/task.js';
import type { SessionConfig } from './sessionConfig.js';
import { selectTools } from './selectTools.js';
import { logWarning } from '../util/log.js';
import { undiciFetch } from '../net/undici.js';
import { agentConcurrency } from '../workflows/concurrency.js';

export interface SessionTools {
  plugins: PluginSet;
  skills: SkillCatalog;
  tools: ToolSet;
  /** --json-schema's StructuredOutput (initialize's jsonSchema replaces it through the runner's settings). */
  structuredOutputTool: Tool | undefined;
  /** The plugins' skills changed: the skill folders are read again and the Skill tool follows. */
  setPluginSkills(list: SkillEntry[]): Promise<void>;
  /** Skills appeared or changed (reload_skills, a plugin): offer the Skill tool unless --tools left it out. */
  skillsChanged(): void;
  /** initialize.skills: the host's selection; the Skill tool comes with them even if --tools left it out. */
  selectSkills(selection: string[] | 'all'): void;
}

/** Throws StartupError (exit 2) naming a broken plugin, an unbuilt tool or a bad --json-schema. */
export async function setupSessionTools(
  o: CliOptions,
  config: SessionConfig,
  env: NodeJS.ProcessEnv,
  /** The agents the Agent tool lists (the session's subagents, set up after the tools). */
  agents: () => SubagentSummary[],
  /** A teammate process's own tools (its team's task list). */
  extraTools: Tool[] = [],
): Promise<SessionTools> {
  const usage = (message: string) => new StartupError(message, 2);
  const plugins = new PluginSet(config.cwd, logWarning);
  try {
    await plugins.add([
      ...o.pluginDir.map((path) => ({ path })),
      ...o.pluginDirNoMcp.map((path) => ({ path, skipMcp: true })),
    ]);
  } catch (err) {
    if (!(err instanceof PluginError)) throw err;
    throw usage(err.message);
  }
  const skills = new SkillCatalog({ cwd: config.cwd, projectRoot: config.projectRoot, env, sources: config.sources });
  let pluginSkills = plugins.list().flatMap((p) => p.skills);
  skills.setPluginSkills(() => pluginSkills);
  const skillTool = () => makeSkillTool(() => skills.enabled());
  const initialSkillTool = (await skills.reload()).length ? [skillTool()] : [];
  let builtin: Tool[];
  try {
    builtin = selectTools(
      [
        ...builtinTools({
          agentTeams: config.agentTeams,
          env,
          fetch: undiciFetch,
          agents,
          ...(config.workflows ? { workflowConcurrency: agentConcurrency() } : {}),
        }),
        ...initialSkillTool,
        ...extraTools,
      ],
      o,
      config.apiProvider,
    );
  } catch (err) {
    throw usage((err as Error).message);
  }
  const tools = new ToolSet(builtin);
  let structuredOutputTool: Tool | undefined;
  try {
    if (o.jsonSchema !== undefined) structuredOutputTool = createStructuredOutputTool(o.jsonSchema);
  } catch (err) {
    throw usage(`--json-schema: ${(err as Error).message}`);
  }
  const offerSkillTool = (allowed: boolean) => {
    if (allowed && skills.enabled().length && !tools.has('Skill')) tools.add(skillTool());
    else tools.refresh();
  };
  return {
    plugins,
    skills,
    tools,
    structuredOutputTool,
    async setPluginSkills(list) {
      pluginSkills = list;
      await skills.reload();
      offerSkillTool(config.skillToolAllowed);
    },
    skillsChanged: () => offerSkillTool(config.skillToolAllowed),
    selectSkills(selection) {
      skills.select(selection);
      offerSkillTool(true);
    },
  };
}
