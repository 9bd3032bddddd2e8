// Agent (formerly Task, the name it still answers to and hosts see in system/init): launch a
// subagent with a fresh context.
// The tool only validates and delegates: the session provides `ctx.services.subagents`, which runs
// the agent loop (synchronously, forwarding its events as progress, or in the background).
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type Tool, type ToolContext, type ToolProgress, type ToolResult } from './tool.js';
import { teamService } from './teamService.js';

export interface SubagentSummary {
  name: string;
  description: string;
  /** Tool names, or undefined for "all tools". */
  tools?: string[];
}

export interface SubagentRequest {
  description: string;
  prompt: string;
  subagentType: string;
  model?: string;
  maxTurns?: number;
  /** Run in a git worktree of its own (removed after, unless the agent left changes there). */
  isolation?: 'worktree';
}

/** What the session implements (src/agents) and hands to tools as `ctx.services.subagents`. */
export interface SubagentService {
  /** The agents a Task call may name. */
  list(): SubagentSummary[];
  /**
   * Run a subagent to its end. Yields `{type:'forward', event}` for each of its loop
   * events (the parent forwards them to the host); returns its final text as the tool result.
   */
  run(req: SubagentRequest, ctx: ToolContext): AsyncGenerator<ToolProgress, ToolResult, void>;
  /** Start a subagent in the background; returns at once with its task id and output file. */
  startBackground(req: SubagentRequest, ctx: ToolContext): Promise<ToolResult>;
}

export const DEFAULT_SUBAGENT_TYPE = 'general-purpose';
/** Not an agent definition: a copy of the caller (src/agents/fork.ts). */
export const FORK_SUBAGENT_TYPE = 'fork';

export const taskInputSchema = lazySchema(() =>
  z.object({
    description: z.string().describe('A short (3-5 word) description of the task'),
    prompt: z.string().describe('The task for the agent to perform'),
    subagent_type: z
      .string()
      .optional()
      .describe(`The type of specialized agent to use for this task (default: ${DEFAULT_SUBAGENT_TYPE})`),
    model: z
      .string()
      .optional()
      .describe(
        "Optional model for this agent: sonnet, opus, haiku, inherit (the parent's model) or a model id. Defaults to the agent definition's model, else the parent's.",
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Set to true to run the agent in the background; you will be notified when it completes.'),
    max_turns: z.number().int().positive().optional().describe("Optional cap on the agent's model turns"),
    name: z
      .string()
      .optional()
      .describe(
        'Name for the spawned agent: it becomes a teammate that runs in the background, addressable with SendMessage({to: name}) while it lives',
      ),
    team_name: z
      .string()
      .optional()
      .describe("The team it joins (agent teams; default: the team you lead, or the session's implicit team)"),
    isolation: z
      .enum(['worktree', 'remote'])
      .optional()
      .describe(
        '"worktree" runs the agent in a temporary git worktree (its own branch and copy of the repository): removed after if the agent changed nothing, else kept and its path and branch returned. "remote" is not supported by this runtime.',
      ),
  }),
);
export type TaskInput = z.infer<typeof taskInputSchema>;

export function taskDescription(agents: SubagentSummary[]): string {
  const list = agents
    .map((a) => `- ${a.name}: ${a.description} (Tools: ${a.tools?.length ? a.tools.join(', ') : 'All tools'})`)
    .join('\n');
  return `Launch a new agent to handle complex, multi-step tasks autonomously. Each agent starts with a fresh context: it sees only the prompt you give it, works with its own tools, and returns one final report.

Available agent types and the tools they have access to:
${list || '- (none)'}

When using this tool, set subagent_type to pick an agent type (default: ${DEFAULT_SUBAGENT_TYPE}).

Usage notes:
- Launch several agents at once when the work is independent: put several calls in one message and they run concurrently.
- The agent's result is not shown to the user: relay what matters in your own answer.
- Write a complete, self-contained prompt: say exactly what to do and what to report back, since the agent cannot ask you questions.
- run_in_background: the call returns at once with a task id and an output file; you are notified when the agent completes. Use TaskOutput to read its result earlier, TaskStop to stop it.
- isolation: "worktree": the agent works in a temporary git worktree of the repository (its own branch), so its edits do not touch the main checkout; if it changed nothing the worktree is removed, otherwise the result names its path and branch.
- name: the agent becomes a teammate: it runs in the background, keeps its conversation between messages, and you talk to it with SendMessage {to: name}; what it sends you (and a notice when it goes idle) arrives as a <teammate-message> turn, also after you have answered. ListAgents lists the live ones.
- subagent_type "fork": instead of a fresh agent, a copy of you that inherits this whole conversation, runs on your model and reads your prompt cache (cheap to start). Give it a directive in prompt; its final report comes back as the result. Use it for a side task that needs what you already know.
- Agents cannot launch agents of their own.`;
}

function subagents(ctx: ToolContext): SubagentService {
  const svc = ctx.services?.subagents;
  if (!svc) throw new ToolError('Subagents are not available in this context');
  return svc;
}

/**
 * Agent (the reference's name for the model), answering to Task too. `agents`: what its
 * description lists, read each time the model is offered it (the session's subagents, which may
 * change: initialize.agents, plugins); a bare context lists none.
 */
export function makeAgentTool(agents: () => SubagentSummary[] = () => []): Tool<typeof taskInputSchema> {
  const name = 'Agent';
  return defineTool({
    name,
    legacyName: 'Task',
    get description() {
      return taskDescription(agents());
    },
    inputSchema: taskInputSchema,
    // Launching has no side effect of its own: the agent's tools are each checked as they run.
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    label: (input) => `${name}: ${input.description}`,
    // `Agent(reviewer)` names calls of one subagent type.
    matchesRuleContent: (content, input) => input.subagent_type === content,
    async *call(input, ctx) {
      if (input.isolation === 'remote')
        throw new ToolError(
          'isolation: "remote" is not supported by this agent runtime (there is no remote environment): call Agent again without it, or with isolation: "worktree"',
        );
      if (input.isolation === 'worktree' && input.name !== undefined)
        throw new ToolError(
          'isolation: "worktree" is not supported for teammates (a name): leave out one or the other',
        );
      const svc = subagents(ctx);
      const type = input.subagent_type?.trim() || DEFAULT_SUBAGENT_TYPE;
      const known = svc.list();
      const fork = type === FORK_SUBAGENT_TYPE && !known.some((a) => a.name === type);
      if (fork && (input.name !== undefined || input.isolation !== undefined))
        throw new ToolError('A fork is a copy of you in this conversation: it takes no name and no isolation');
      if (!fork && !known.some((a) => a.name === type))
        throw new ToolError(`Agent type '${type}' not found. Available agents: ${known.map((a) => a.name).join(', ')}`);
      const req: SubagentRequest = {
        description: input.description,
        prompt: input.prompt,
        subagentType: type,
        ...(input.model ? { model: input.model } : {}),
        ...(input.max_turns ? { maxTurns: input.max_turns } : {}),
        ...(input.isolation === 'worktree' ? { isolation: 'worktree' as const } : {}),
      };
      if (input.name !== undefined)
        return await teamService(ctx).spawn({ ...req, name: input.name, teamName: input.team_name }, ctx);
      if (input.team_name !== undefined) throw new ToolError('team_name needs a name: give the teammate a `name`');
      if (input.run_in_background) return await svc.startBackground(req, ctx);
      return yield* svc.run(req, ctx);
    },
  });
}
