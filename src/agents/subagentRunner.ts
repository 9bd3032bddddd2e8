// The session's SubagentService (ctx.services.subagents): what the Task/Agent tool calls. A
// subagent is the same agent loop, in the same process, with a fresh context — its own history
// (the prompt is its first user message; a fork's is its parent's conversation), system prompt,
// tool subset (never Task/Agent), read-files map and todo list — prepared under the calling loop
// (prepareAgent.ts). Every run is a task in the registry (task_started, task_progress, its end) and
// goes through one lifecycle over the one run driver (agentRun.ts); it runs in the foreground
// (foregroundAgent.ts: its events forwarded as the call's progress) or in the background
// (backgroundAgent.ts). Every event it produces carries parent_tool_use_id = the Task tool_use id.
import type { ToolContext, ToolProgress, ToolResult } from '../../tools/tool.js';
import { ToolError } from '../../tools/tool.js';
import type { SubagentRequest, SubagentService, SubagentSummary } from '../../tools/task.js';
import { callingLoop } from '../loop/childLoop.js';
import type { Transcript, TranscriptIdentity } from '../transcript/transcript.js';
import type { MirrorSink } from '../transcript/mirror.js';
import { agentTranscriptPath, openAgentTranscript } from './agentTranscript.js';
import type { AgentRunDeps } from './agentRun.js';
import { startBackground, type AgentLauncher } from './backgroundAgent.js';
import { agentToolNames } from './definitions.js';
import { FORK_AGENT, forkBase } from './fork.js';
import { runForeground } from './foregroundAgent.js';
import {
  prepareAgent,
  unknownAgentType,
  type PrepareDeps,
  type PrepareOptions,
  type Prepared,
} from './prepareAgent.js';

/** What the session gives its subagents: their runs' needs, their preparation's, and where transcripts go. */
export interface SubagentDeps extends AgentRunDeps, PrepareDeps {
  /** The session's folder: subagent transcripts go to its subagents/agent-<id>.jsonl. */
  sessionFolder: () => string;
  /** Session id, cwd and version written on every transcript line. */
  transcriptIdentity: () => Omit<TranscriptIdentity, 'agentId'>;
  /** --session-mirror: where each transcript entry goes once written (src/transcript/mirror.ts). */
  mirror?: MirrorSink;
}

export class SubagentRunner implements SubagentService {
  private readonly launcher: AgentLauncher = {
    prepareTask: async (req, ctx, { signal, agentId, worktree }) => {
      const fork = this.isFork(req) ? await forkBase(ctx) : undefined;
      return this.prepare(req, ctx, {
        signal,
        agentId,
        transcriptPath: this.transcriptPath(agentId),
        worktree,
        fork,
      });
    },
    known: (type) => this.deps.catalog.get(type) !== undefined,
    unknown: (type) => unknownAgentType(type, this.deps.catalog),
    openTranscript: (p) => this.openTranscript(p),
  };

  constructor(private readonly deps: SubagentDeps) {}

  list(): SubagentSummary[] {
    const available = this.deps.tools().map((t) => t.name);
    return this.deps.catalog.all().map((d) => ({
      name: d.name,
      description: d.description,
      ...(d.tools || d.disallowedTools ? { tools: agentToolNames(d, available) } : {}),
    }));
  }

  run(req: SubagentRequest, ctx: ToolContext): AsyncGenerator<ToolProgress, ToolResult, void> {
    return runForeground(this.deps, this.launcher, req, ctx);
  }

  startBackground(req: SubagentRequest, ctx: ToolContext): Promise<ToolResult> {
    return startBackground(this.deps, this.launcher, req, ctx);
  }

  /**
   * One agent of `req`'s type under the loop that made this call (teammates and workflow agents
   * use it too): its config derived from the caller's, with its services.
   */
  prepare(req: SubagentRequest, ctx: ToolContext, o: PrepareOptions): Prepared {
    const loop = callingLoop(ctx);
    if (!loop) throw new ToolError('Subagents can only run inside a session run');
    return prepareAgent(this.deps, loop, req, ctx, o);
  }

  /** `<session>/subagents/agent-<id>.jsonl` (its folder made). */
  transcriptPath(agentId: string): string {
    return agentTranscriptPath(this.deps.sessionFolder(), agentId);
  }

  /** The agent's transcript: a side chain of the session (a teammate's lines name its team). */
  openTranscript(p: Prepared, teamName?: string): Transcript {
    return openAgentTranscript(p.transcriptPath, this.deps.transcriptIdentity(), p.agentId, teamName, this.deps.mirror);
  }

  /** A fork, unless an agent definition of that name takes its place. */
  private isFork(req: SubagentRequest): boolean {
    return req.subagentType === FORK_AGENT.name && !this.deps.catalog.get(req.subagentType);
  }
}
