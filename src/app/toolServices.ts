// The main agent's tool services, built once and complete: every service a tool reaches through
// ctx.services is placed here (the mapped type makes a new one fail to compile until it is), and
// nothing patches the object afterwards. Children derive theirs with deriveChildServices
// (src/loop/childLoop.ts).
import type { FileHistoryService, SkillActivationService, ToolServices } from '../../tools/tool.js';
import type { PlanModeService } from '../../tools/planMode.js';
import type { WorktreeSessionService } from '../../tools/worktree.js';
import type { AgentServices, AgentSetup } from './agentSetup.js';
import type { Guards } from '../session/guards.js';
import { createPlanModeService } from '../session/planMode.js';
import type { SessionSettings } from '../session/runner.js';
import { sessionTmpDir } from '../util/configDir.js';
import { fileCheckpointsFor } from '../session/sessionControls.js';
import type { FileCheckpoints } from '../session/fileCheckpoints.js';
import { TurnScope } from '../session/turnScope.js';
import { createWorktreeSession, type WorktreeSession } from '../worktrees/session.js';
import { type HostSetup, type SessionConfig, turnModel } from './sessionConfig.js';
import { allowRulesForTurn } from './sessionCommands.js';
import { startSandbox } from './sessionSandbox.js';
import type { SessionBase } from './sessionStart.js';
import { parseRule } from '../permissions/rules.js';
import type { CommandSandbox } from '../../tools/sandbox.js';
import type { PeerService } from '../../tools/peers.js';

export interface MainServiceParts {
  agents: AgentServices;
  planMode: PlanModeService;
  worktrees: WorktreeSessionService;
  skills: SkillActivationService;
  sandbox: CommandSandbox | undefined;
  fileHistory: FileHistoryService | undefined;
  /** A teammate process: the team its tools reach, its name there, the team's task list. */
  teammate: Pick<ToolServices, 'team' | 'teamMember' | 'taskList'> | undefined;
  /** The other local sessions (src/peers); absent in a teammate process. */
  peers: PeerService | undefined;
}

export interface MainServices {
  services: ToolServices;
  planMode: PlanModeService;
  worktrees: WorktreeSession;
  /** What a turn changes for itself (a command's, a loaded skill's allowed-tools and model). */
  turn: TurnScope;
  checkpoints: FileCheckpoints | undefined;
}

/** The services' parts (plan mode, the worktree, the sandbox, file checkpoints, skills), then the services. */
export async function startToolServices(p: {
  teammate: MainServiceParts['teammate'];
  peers?: PeerService;
  base: SessionBase;
  settings: SessionSettings;
  host: HostSetup;
  guards: Guards;
  agents: AgentSetup;
}): Promise<MainServices> {
  const { guards, settings } = p;
  const { env, config, start } = p.base;
  const planMode = createPlanModeService(guards.permissions, () => p.host.planModeInstructions);
  // EnterWorktree / ExitWorktree move the session: tool contexts read settings.cwd per call.
  const worktrees = createWorktreeSession({
    cwd: () => settings.cwd,
    moveTo: (dir) => {
      settings.cwd = dir;
      guards.permissions.moveTo(dir);
    },
  });
  const turn = new TurnScope((rules) => allowRulesForTurn(guards.permissions, rules));
  const sandbox = await startSandbox(guards, { cwd: config.cwd, env, scratchDir: sessionTmpDir(start.sessionId) });
  if (sandbox) settings.sandbox = sandbox.status;
  const checkpoints = fileCheckpointsFor({
    env,
    sessionId: start.sessionId,
    sessionFolder: p.base.sessionFolder,
    transcript: start.transcript,
    restored: start.checkpoints,
  });
  const services = buildToolServices({
    agents: p.agents.services,
    planMode,
    worktrees,
    skills: createSkillActivation(turn, config),
    sandbox,
    fileHistory: checkpoints,
    teammate: p.teammate,
    peers: p.peers,
  });
  return { services, planMode, worktrees, turn, checkpoints };
}

/** Every ToolServices field, optional ones too. */
type EveryService = { [K in keyof Required<ToolServices>]: ToolServices[K] };

export function buildToolServices(parts: MainServiceParts): ToolServices {
  const services: EveryService = {
    ...parts.agents,
    planMode: parts.planMode,
    worktrees: parts.worktrees,
    skills: parts.skills,
    sandbox: parts.sandbox,
    fileHistory: parts.fileHistory,
    // The main agent is nobody's subagent; it leads its team, or is a teammate process in one.
    agentId: undefined,
    ...(parts.teammate ?? {}),
    teamMember: parts.teammate?.teamMember,
    taskList: parts.teammate?.taskList,
    peers: parts.peers,
  };
  return services;
}

/**
 * A skill the model loads: its allowed-tools and model for the rest of the turn (tools/skill.ts);
 * its `model` is read by the model rule (turnModel: `default` the session's default, `inherit` none).
 */
export function createSkillActivation(
  turn: TurnScope,
  config: Pick<SessionConfig, 'defaultModel'>,
): SkillActivationService {
  return {
    activate: ({ name, allowedTools, model }) => {
      for (const r of allowedTools) {
        try {
          parseRule(r);
        } catch (err) {
          throw new Error(
            `its allowed-tools entry "${r}" is not a permission rule: ${(err as Error).message} (fix the SKILL.md front matter of ${name})`,
          );
        }
      }
      const resolved = turnModel(config, model);
      if (!turn.apply(allowedTools, resolved)) throw new Error('no turn is running');
      return { allowedTools, ...(resolved ? { model: resolved } : {}) };
    },
  };
}
