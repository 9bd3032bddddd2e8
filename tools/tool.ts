// The contract every built-in tool keeps. A tool knows nothing of the wire protocol: it gets
// validated input and a context, yields progress, and returns what the model and the host see.
import type { ForegroundService } from './foreground.js';
import type { z } from 'zod';
import type { AssistantMessage, LoopEvent } from './agentEvents.js';
import type { TeamToolService } from './teamService.js';
import type { CommandSandbox } from './sandbox.js';
import type { BackgroundShellService } from './bash.js';
import type { SubagentService } from './task.js';
import type { TaskControlService } from './taskOutput.js';
import type { TodoStore } from './todoWrite.js';
import type { PlanModeService } from './planMode.js';
import type { WorktreeSessionService } from './worktree.js';
import type { TaskListService } from './teamTasks.js';
import type { ScheduleService } from './cron.js';
import type { MonitorService } from './monitor.js';
import type { PeerService } from './peers.js';
import type { DeferredToolCatalog } from './toolSearch.js';
import type { WorkflowService } from './workflow.js';

/** A content block a tool may hand back to the model (text, or an image it read). */
export type ToolContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };

export interface ToolResult {
  /** What the model sees as the tool_result content. */
  content: string | ToolContentBlock[];
  /** true → the tool_result carries is_error: the model reads it and the loop goes on. */
  isError?: boolean;
  /** Structured output for hosts: the `tool_use_result` of the protocol's user message. */
  data?: unknown;
}

/** What a call reports while it runs. */
export type ToolProgress =
  /** It is still going (an MCP server's progress notification): the host gets a tool_progress line now. */
  | { type: 'progress' }
  /**
   * An event of an agent the call runs (a subagent's messages and task events, a web search's
   * reply): the loop forwards it, in its place among the run's events.
   */
  | { type: 'forward'; event: LoopEvent };

/** A tool the API runs itself (web_search): named by its versioned type, no input_schema. */
export interface ServerTool {
  type: string;
  name: string;
  [k: string]: unknown;
}

/** One model call made on behalf of a tool call (WebFetch's page question, WebSearch's search). */
export interface SideCallRequest {
  model: string;
  system: string | ReadonlyArray<{ type: 'text'; text: string }>;
  prompt: string;
  /** Server tools the call may use (WebSearch's web_search). */
  tools?: ServerTool[];
  maxTokens: number;
  signal: AbortSignal;
  /** The tool_use id that asks: a recording orders this call's requests on their own. */
  caller: string;
}

/**
 * What a tool call knows of the loop that made it (`ctx.loop`, set by the loop). The loop's own
 * handle (src/loop/childLoop.ts) has more: its config and a way to start a child loop, for the
 * subagent runner in src/; tools see this much.
 */
export interface LoopHandle {
  /** The model of the calling loop's next call. */
  model(): string;
  /** The small, fast model for side work (ANTHROPIC_SMALL_FAST_MODEL, else the default one). */
  smallFastModel(): string;
  /**
   * One model call through the calling loop's model client, so a recording, a replay and the
   * prompt cache cover it; its usage counts in the run's (and the session's spend). The whole reply.
   */
  sideCall(req: SideCallRequest): Promise<AssistantMessage>;
  /** The calling loop's deferred tools (ToolSearch loads them into it); absent when none are. */
  readonly deferredTools?: DeferredToolCatalog;
}

/** What a file tool remembers of a file it read: Write/Edit refuse files not read, or changed since. */
export interface FileReadRecord {
  mtimeMs: number;
  size: number;
}

export interface ToolContext {
  /** The session's working directory; relative paths resolve against it. */
  cwd: string;
  /** Aborted on interrupt, timeout or exit: a tool stops at once and kills its child processes. */
  signal: AbortSignal;
  sessionId: string;
  /** Absolute path → what Read saw. Shared by Read, Write and Edit of one agent context. */
  readFiles: Map<string, FileReadRecord>;
  /** A directory the tool may write large outputs into (per session). */
  scratchDir: string;
  /** The tool_use id of this call (for task ids, file names, progress). */
  toolUseId: string;
  /**
   * False for a file the session's deny rules keep from reading: searches (Grep, Glob) that walk
   * into a denied folder leave it out. Absent when nothing is denied.
   */
  isPathReadable?: (absPath: string) => boolean;
  /** Services that some tools need (background tasks, subagents, todos); absent in bare contexts. */
  services?: ToolServices;
  /** The loop that made this call (set by the loop): a tool starts a child loop through it; ToolSearch loads tools into it. */
  loop?: LoopHandle;
}

/**
 * What tools that reach beyond one call need of the session (Task, TaskOutput, TaskStop,
 * TodoWrite, background Bash, team tools). Each interface is written by the tool that uses it;
 * src/ implements them. Absent in bare contexts: a tool says so with a ToolError.
 */
export interface ToolServices {
  subagents?: SubagentService;
  tasks?: TaskControlService;
  backgroundShell?: BackgroundShellService;
  /** The main thread's blocking Bash calls and subagents, which a host may move to the background (background_tasks). */
  foreground?: ForegroundService;
  /** The session's Bash sandbox (src/sandbox), when `sandbox.enabled` is on. */
  sandbox?: CommandSandbox;
  /** This agent context's todo list (the session and each subagent have their own). */
  todos?: TodoStore;
  /** Agent teams (src/teams): the team the caller is in; the team tools narrow it to what they call. */
  team?: TeamService;
  /** The calling teammate's name; absent for the lead and for agents outside a team. */
  teamMember?: string;
  /** The team's shared task list (TaskCreate/Get/Update/List): a teammate process's team. */
  taskList?: TaskListService;
  /** The subagent's id; absent for the main agent. */
  agentId?: string;
  /** The session's plan mode (EnterPlanMode, ExitPlanMode); absent in subagents. */
  planMode?: PlanModeService;
  /** EnterWorktree / ExitWorktree: the main agent's worktree; absent in subagents. */
  worktrees?: WorktreeSessionService;
  /** File checkpoints (enableFileCheckpointing): Write/Edit call it right before changing a file. */
  fileHistory?: FileHistoryService;
  /** The main thread's turn, which a loaded skill changes (its allowed-tools, its model); absent in subagents. */
  skills?: SkillActivationService;
  /** The session's schedule (CronCreate, CronDelete, CronList, ScheduleWakeup); absent in subagents. */
  schedule?: ScheduleService;
  /** Monitor's background watches; absent in subagents. */
  monitor?: MonitorService;
  /** Other local sessions of the same user (ListAgents, SendMessage); absent in a teammate process. */
  peers?: PeerService;
  /** Workflow runs (src/workflows); absent in subagents. */
  workflows?: WorkflowService;
}

export interface SkillActivationService {
  /**
   * Apply a skill's allowed-tools and model (as the skill writes it: the session reads it by its
   * model rule) to the rest of the turn; returns what was applied, or throws with why not.
   */
  activate(skill: { name: string; allowedTools: string[]; model?: string }): { allowedTools: string[]; model?: string };
}

export interface FileHistoryService {
  /** Copy `absPath` as it is now, if this turn has not copied it yet. */
  beforeWrite(absPath: string): Promise<void>;
}

export type TeamService = TeamToolService;

/** Thrown by a tool for an expected failure: the message goes to the model as an is_error result. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  /** The name the model is offered and calls. */
  name: string;
  /**
   * An older name the tool still answers to: in the model's calls, in permission rules, in
   * `--tools` / `--disallowedTools` and in agent definitions; system/init lists this one, so hosts
   * written against it keep working (the reference offers the model `Agent` and lists `Task`).
   */
  legacyName?: string;
  /** Model-facing prose. */
  description: string;
  inputSchema: S;
  /**
   * The input_schema the model sees, when it is not derived from `inputSchema` (StructuredOutput
   * offers a host's JSON schema as given). Must be an object schema.
   */
  apiInputSchema?: Record<string, unknown>;
  /**
   * The tool asks the person something (AskUserQuestion, ExitPlanMode): every call goes to the
   * host or the terminal, whatever the mode or the allow rules say; with no one to ask it fails.
   */
  requiresUserInteraction?: boolean;
  /** Never deferred behind ToolSearch (an MCP server's or tool's alwaysLoad). */
  alwaysLoad?: boolean;
  /**
   * A built-in tool few sessions use: withheld from requests whenever ToolSearch is offered; the
   * model sees its name in the deferred-tools reminder and loads it with ToolSearch (saves tokens).
   */
  deferred?: boolean;
  /** No side effects: safe in plan mode and allowed by default inside the working directories. */
  isReadOnly(input: z.infer<S>): boolean;
  /** May run at the same time as other concurrency-safe calls of the same assistant turn. */
  isConcurrencySafe(input: z.infer<S>): boolean;
  call(input: z.infer<S>, ctx: ToolContext): AsyncGenerator<ToolProgress, ToolResult, void>;

  // What a call touches, declared by the tool: permissions, the sandbox and the loop ask these and
  // never the tool's name. All optional: a tool that declares none is of kind 'other'.
  /** What the tool does, as permissions and the loop treat it (see ToolKind). */
  kind?: ToolKind;
  /** The paths or the command one call touches, from its validated input. */
  access?(input: z.infer<S>): ToolAccess;
  /** A short human label of the call: "Run: npm test", "Edit /repo/src/a.ts". Default: the tool's name. */
  label?(input: z.infer<S>): string;
  /**
   * The input fields that say what a call does on a permission prompt (can_use_tool's
   * description), the first one a call has winning: Bash's own `description` then its `command`,
   * a file tool's path as given. Default: `['description']` (what an MCP tool's call may carry).
   */
  describedBy?: readonly string[];
  /** The most characters of content the model sees from one call (default MAX_RESULT_CHARS). */
  outputCap?: number;
  /** Does a rule's specifier name this call (`WebFetch(domain:x)`, `Agent(reviewer)`)? For tools with specifiers of their own. */
  matchesRuleContent?(content: string, input: z.infer<S>): boolean;
  /** The specifier an ask suggests allowing from now on (WebFetch: `domain:<host>`); absent: the whole tool. */
  suggestRuleContent?(input: z.infer<S>): string | undefined;
  /** A permission mode in which the call makes no sense (ExitPlanMode outside plan mode): the refusal, or undefined. */
  refuseInMode?(mode: string): { message: string; reason: string } | undefined;
  /** The tool marks file activity itself (Bash, per command it runs); else a call that is not read-only is taken to change files. */
  reportsFileActivity?: boolean;
  /** A part the loop itself gives the tool (see ToolRole): the loop finds such a tool by its role, never by its name. */
  role?: ToolRole;
}

/**
 * A part the agent loop gives a tool of its own:
 * - `tool-search`: loads deferred tools into the loop (ToolSearch): tools are deferred only when
 *   one is offered, it is offered only while some are, and the deferred-tools reminder names it.
 * - `structured-output`: a valid call's input ends the run as its structured output
 *   (StructuredOutput): the loop counts invalid calls and reminds a model that ends without one.
 */
export type ToolRole = 'tool-search' | 'structured-output';

/**
 * What a tool does, as permissions and the loop treat it (after Gemini CLI's `Kind`):
 * - `read`: reads the files `access().paths` names; `Read(…)` rules apply; allowed inside the working directories.
 * - `search`: walks the folder `access().paths` names; `Read(…)` rules apply to what is inside it.
 * - `edit`: changes the files `access().paths` names; `Edit(…)` rules apply; acceptEdits allows it.
 * - `execute`: runs the shell command `access().command`; command rules (`Tool(npm test:*)`) apply, the sandbox wraps it.
 * - `fetch`: reaches the network: never allowed by default, even though read-only.
 * - `think`: steers the session itself (plans, todos, questions): plan mode lets it through.
 * - `other`: anything else; rules name it as a whole (or through `matchesRuleContent`).
 */
export type ToolKind = 'read' | 'search' | 'edit' | 'execute' | 'fetch' | 'think' | 'other';

/** What one call touches. Paths are as the call gives them (absolute, relative to cwd, or `~/…`). */
export interface ToolAccess {
  /** read, edit: the files; search: the folder searched (absent: the working directory). */
  paths?: string[];
  /** execute: the shell command. */
  command?: string;
  /** execute: the call asks to run outside the Bash sandbox. */
  leavesSandbox?: boolean;
}

/**
 * The settings grammar's spellings of path rules, which cover tools by kind: `Read(…)` covers
 * every read and search tool, any edit spelling covers every edit tool. A rule naming one of
 * these holds a path pattern; a rule naming a command rule name holds a command pattern.
 */
export const READ_RULE = 'Read';
export const READ_RULE_NAMES: ReadonlySet<string> = new Set([READ_RULE, 'Glob', 'Grep', 'LS', 'NotebookRead']);
export const EDIT_RULE_NAMES: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
export const COMMAND_RULE_NAMES: ReadonlySet<string> = new Set(['Bash']);

/** Identity helper so each tool file keeps its input type inferred from its schema. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}
