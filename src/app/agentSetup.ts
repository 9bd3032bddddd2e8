// Wires subagents and background tasks into one session: the agent catalog (built-in, files,
// --agents, initialize.agents), the task registry, and the services tools reach through ctx.
import { join } from 'node:path';
import { createTodoStore } from '../../tools/todoWrite.js';
import type { Tool, ToolServices } from '../../tools/tool.js';
import type { LoopEvent } from '../loop/events.js';
import { createBackgroundShellService } from '../tasks/backgroundShell.js';
import { createBackgroundHost, type BackgroundHost } from '../tasks/host.js';
import { TaskRegistry } from '../tasks/registry.js';
import { ForegroundTasks } from '../tasks/foreground.js';
import { Scheduler, stopHookState } from '../tasks/scheduler.js';
import { createMonitorService } from '../tasks/monitor.js';
import { createTaskControlService } from '../tasks/service.js';
import { createWorkflowService } from '../workflows/service.js';
import { AgentCatalog, parseAgentRecord, parseAgentsFlag } from '../agents/definitions.js';
import { loadAgentDir } from '../agents/markdownAgents.js';
import { SubagentRunner } from '../agents/subagentRunner.js';
import { TeamService } from '../teams/team.js';
import type { TeamEvent } from '../teams/teamHost.js';
import type { TeammateLaunch } from '../teams/teammateLaunch.js';
import type { TeammateQuestionAnswerer } from '../teams/permissionDesk.js';
import { takeHandedAgents } from '../teams/paneEnv.js';
import { configDir, sessionTmpDir } from '../util/configDir.js';
import type { SettingSource } from '../settings/index.js';
import { logWarning } from '../util/log.js';
import type { MirrorSink } from '../transcript/mirror.js';

export interface AgentSetupOptions {
  sessionId: string;
  cwd: string;
  /** The session's offered tools (subagents take their subsets from these). */
  tools: () => Tool[];
  /** What subagents, teammates, tasks and the team tell the host (the session turns them into lines). */
  emit: (event: LoopEvent | { type: 'team'; event: TeamEvent }) => Promise<void>;
  /** `--agents '<json>'`. */
  agentsFlag?: string;
  /** The config's setting sources: `.claude/agents/*.md` loads when `project` is on (user: ~/.claude/agents). */
  sources: SettingSource[];
  /** `--project-config-root`: where `.claude/agents` is read (default: cwd). */
  projectRoot?: string;
  env?: NodeJS.ProcessEnv;
  /** The session's folder beside its transcript; without persistence a temp folder is used. */
  sessionFolder?: string;
  /** Written on subagent transcript lines. */
  version: string;
  /** --session-mirror: where each transcript entry goes once written (src/transcript/mirror.ts). */
  mirror?: MirrorSink;
  /** initialize.agentProgressSummaries (read when a background agent starts). */
  progressSummaries?: () => boolean;
  /** initialize.appendSubagentSystemPrompt (read when a subagent starts). */
  subagentAppend?: () => string | undefined;
  /** Teammate mode tmux or detached: how teammate processes are started (src/teams/teammateLaunch.ts). */
  processTeammates?: TeammateLaunch;
  forwardSubagentText?: () => boolean;
  /** The session's default model (SessionConfig.defaultModel): what a subagent's `model: default` means. */
  defaultModel: string;
  /** How the lead answers its process teammates' permission questions (src/app/teammateQuestions.ts). */
  answerTeammateQuestions: TeammateQuestionAnswerer;
}

/** The tool services subagents, tasks and the team provide (the session adds its own: src/app/toolServices.ts). */
export type AgentServices = Required<
  Pick<
    ToolServices,
    'subagents' | 'backgroundShell' | 'foreground' | 'tasks' | 'todos' | 'team' | 'schedule' | 'monitor' | 'workflows'
  >
>;

export interface AgentSetup {
  catalog: AgentCatalog;
  registry: TaskRegistry;
  /** The main thread's blocking Bash calls and subagents (background_tasks moves them). */
  foreground: ForegroundTasks;
  services: AgentServices;
  background: BackgroundHost;
  team: TeamService;
  /** Cron jobs and /loop wakeups: the runner fires their prompts between turns. */
  schedule: Scheduler;
  /** `initialize.agents` from the host. Throws on a bad definition. */
  setSdkAgents(agents: Record<string, unknown>): void;
}

/** Throws with a clear message on a bad `--agents` value. */
export async function setupAgents(o: AgentSetupOptions): Promise<AgentSetup> {
  const env = o.env ?? process.env;
  const catalog = new AgentCatalog();
  const fromFiles = async (dir: string, source: 'user' | 'project') => {
    const { agents, problems } = await loadAgentDir(dir, source);
    for (const p of problems) logWarning(`${p.file}: ${p.problem}; the agent was skipped`);
    catalog.set(source, agents);
  };
  if (o.sources.includes('user')) await fromFiles(join(configDir(env), 'agents'), 'user');
  if (o.sources.includes('project')) await fromFiles(join(o.projectRoot ?? o.cwd, '.claude', 'agents'), 'project');
  if (o.agentsFlag !== undefined) catalog.set('flag', parseAgentsFlag(o.agentsFlag));
  // A process teammate: its lead's host's agents (initialize.agents), as if its own host gave them.
  const handed = takeHandedAgents();
  if (handed) catalog.set('sdk', parseAgentRecord(handed, 'sdk'));
  let hostAgents: Record<string, unknown> | undefined;

  const base = sessionTmpDir(o.sessionId);
  const registry = new TaskRegistry({
    dir: join(base, 'tasks'),
    emit: (event) => o.emit({ type: 'task', parentToolUseId: null, event }),
  });
  const background = createBackgroundHost(registry);
  const emitEvent = (ev: LoopEvent) => o.emit(ev);
  const schedule = new Scheduler();
  const subagents = new SubagentRunner({
    catalog,
    registry,
    tools: o.tools,
    emitEvent,
    sessionFolder: () => o.sessionFolder ?? base,
    transcriptIdentity: () => ({ sessionId: o.sessionId, cwd: o.cwd, version: o.version }),
    mirror: o.mirror,
    progressSummaries: o.progressSummaries,
    subagentAppend: o.subagentAppend,
    forwardSubagentText: o.forwardSubagentText,
    stopState: () => stopHookState(registry, schedule),
    defaultModel: o.defaultModel,
  });
  const team = new TeamService({
    sessionId: o.sessionId,
    cwd: o.cwd,
    env,
    registry,
    subagents,
    emit: (event) => o.emit({ type: 'team', event }),
    emitEvent,
    ...(o.processTeammates ? { processTeammates: o.processTeammates, hostAgents: () => hostAgents } : {}),
    answerTeammateQuestions: o.answerTeammateQuestions,
  });
  const foreground = new ForegroundTasks();
  const services: AgentServices = {
    schedule,
    monitor: createMonitorService(registry),
    workflows: createWorkflowService({
      registry,
      runner: subagents,
      catalog,
      sessionFolder: () => o.sessionFolder ?? base,
    }),
    subagents,
    backgroundShell: createBackgroundShellService(registry),
    foreground,
    tasks: createTaskControlService(registry),
    todos: createTodoStore(),
    team,
  };
  return {
    catalog,
    registry,
    foreground,
    services,
    background,
    team,
    schedule,
    setSdkAgents(agents) {
      catalog.set('sdk', parseAgentRecord(agents, 'sdk'));
      hostAgents = agents;
    },
  };
}
