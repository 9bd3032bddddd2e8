// Agent definitions: the built-in `general-purpose` and `Explore`, and custom ones from the host
// (`initialize.agents`), the command line (`--agents '<json>'`) and `.claude/agents/*.md`.
// Later sources override earlier ones by name: built-in < plugins (namespaced) < files < --agents < initialize.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';

export type AgentSource = 'built-in' | 'plugin' | 'user' | 'project' | 'flag' | 'sdk';

export interface AgentDef {
  name: string;
  description: string;
  /** The agent's system prompt. */
  prompt: string;
  /** Tool names it may use; undefined → every tool of the session (never Task/Agent). */
  tools?: string[];
  disallowedTools?: string[];
  /** Alias (sonnet|opus|haiku), 'inherit' or a model id; undefined → the parent's model. */
  model?: string;
  maxTurns?: number;
  source: AgentSource;
}

/** What the SDK's AgentDefinition carries (other fields are accepted and ignored). */
export const agentDefinitionSchema = lazySchema(() =>
  z.looseObject({
    description: z.string({ error: 'description must be a string' }),
    prompt: z.string({ error: 'prompt must be a string' }),
    tools: z.array(z.string()).optional(),
    disallowedTools: z.array(z.string()).optional(),
    model: z.string().optional(),
    maxTurns: z.number().int().positive().optional(),
  }),
);

/** Tools a subagent never gets: no nested subagents. */
export const SUBAGENT_EXCLUDED_TOOLS: ReadonlySet<string> = new Set([
  'Task',
  'Agent',
  // A subagent has no person of its own to ask, and the session's mode is not its to change.
  'AskUserQuestion',
  'EnterPlanMode',
  'ExitPlanMode',
  // The session's working directory is not a subagent's to move (isolation gives it a worktree).
  'EnterWorktree',
  'ExitWorktree',
  // The schedule fires prompts into the main conversation: it is the main thread's alone.
  'CronCreate',
  'CronDelete',
  'CronList',
  'ScheduleWakeup',
  // A monitor's events wake the main conversation.
  'Monitor',
  // A workflow is the main conversation's to start (its agents do not start workflows of their own).
  'Workflow',
]);

const GENERAL_PURPOSE_PROMPT = `You are an agent working for a user through a parent agent. Given the user's message, use the tools available to complete the task fully — do not gold-plate, but do not leave it half-done. When you are done, answer with a concise report of what you did and what you found: the parent agent relays the essentials to the user, so include the facts it needs (file paths, names, results) and nothing it does not.

Guidelines:
- Search broadly when you do not know where something lives; read narrowly once you do.
- Prefer editing existing files to creating new ones; never create documentation files unless asked.
- Use absolute file paths in your answer.`;

const EXPLORE_PROMPT = `You are a fast, read-only search agent. You explore code bases: find files by pattern, search contents, read what matters, and report back.

You must not change anything: no file writes, no edits, no commands that modify the system (only listing, reading, searching, git log/diff/status and similar). Use Glob to find files, Grep to search contents, Read to read them, and Bash only for read-only commands.

Answer with a concise report: the relevant absolute file paths, the key findings, and code excerpts where they help.`;

export const BUILTIN_AGENTS: readonly AgentDef[] = [
  {
    name: 'general-purpose',
    description:
      'General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries, use this agent to perform the search for you.',
    prompt: GENERAL_PURPOSE_PROMPT,
    source: 'built-in',
  },
  {
    name: 'Explore',
    description:
      'Fast read-only agent specialized for exploring codebases: finding files by patterns, searching code for keywords, or answering questions about the codebase. It cannot modify files.',
    prompt: EXPLORE_PROMPT,
    tools: ['Read', 'Glob', 'Grep', 'Bash'],
    source: 'built-in',
  },
];

/** Parse a record of SDK AgentDefinitions (from --agents or initialize.agents). */
export function parseAgentRecord(record: unknown, source: AgentSource): AgentDef[] {
  if (record === null || typeof record !== 'object' || Array.isArray(record))
    throw new Error('agents must be a JSON object mapping names to definitions');
  const out: AgentDef[] = [];
  for (const [name, raw] of Object.entries(record as Record<string, unknown>)) {
    const r = agentDefinitionSchema.safeParse(raw);
    if (!r.success)
      throw new Error(
        `agent "${name}": ${r.error.issues.map((i) => `${i.path.join('.') || 'definition'}: ${i.message}`).join('; ')}`,
      );
    const d = r.data;
    out.push({
      name,
      description: d.description,
      prompt: d.prompt,
      ...(d.tools ? { tools: d.tools } : {}),
      ...(d.disallowedTools ? { disallowedTools: d.disallowedTools } : {}),
      ...(d.model ? { model: d.model } : {}),
      ...(d.maxTurns ? { maxTurns: d.maxTurns } : {}),
      source,
    });
  }
  return out;
}

/** Parse the value of `--agents` (a JSON object). */
export function parseAgentsFlag(json: string): AgentDef[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new Error(`--agents: not valid JSON (${(err as Error).message})`);
  }
  try {
    return parseAgentRecord(value, 'flag');
  } catch (err) {
    throw new Error(`--agents: ${(err as Error).message}`);
  }
}

/** The session's agents, by name. Sources are layered; a later layer wins. */
export class AgentCatalog {
  private readonly layers = new Map<AgentSource, AgentDef[]>();

  constructor() {
    this.layers.set('built-in', [...BUILTIN_AGENTS]);
  }

  set(source: AgentSource, defs: AgentDef[]): void {
    this.layers.set(source, defs);
  }

  all(): AgentDef[] {
    const byName = new Map<string, AgentDef>();
    for (const source of ['built-in', 'plugin', 'user', 'project', 'flag', 'sdk'] as const)
      for (const d of this.layers.get(source) ?? []) byName.set(d.name, d);
    return [...byName.values()];
  }

  get(name: string): AgentDef | undefined {
    return this.all().find((d) => d.name === name);
  }

  names(): string[] {
    return this.all().map((d) => d.name);
  }
}

/**
 * The tools a subagent gets, from the session's offered tools: exactly the listed ones (unknown
 * names are skipped) or all of them, less its disallowed ones, never Task/Agent.
 */
export function agentToolNames(
  def: Pick<AgentDef, 'tools' | 'disallowedTools'>,
  available: readonly string[],
): string[] {
  const listed = def.tools && !(def.tools.length === 1 && def.tools[0] === '*') ? new Set(def.tools) : undefined;
  const denied = new Set(def.disallowedTools ?? []);
  return available.filter((n) => !SUBAGENT_EXCLUDED_TOOLS.has(n) && !denied.has(n) && (!listed || listed.has(n)));
}
