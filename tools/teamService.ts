// What team tools (TeamCreate, TeamDelete, SendMessage, ListAgents, and Task/Agent with a `name`)
// need of the session: `ctx.services.team`, implemented in src/teams. Kept as an interface here so
// tools/ does not import src/. The caller's own name is `ctx.services.teamMember` (absent for the
// lead, who is `team-lead`).
import type { ToolContext, ToolResult } from './tool.js';
import { ToolError } from './tool.js';
import type { SubagentRequest } from './task.js';

export const TEAM_LEAD = 'team-lead';

/** One message as SendMessage's two spellings both mean it. */
export type OutgoingMessage =
  | { kind: 'message'; to: string; text: string; summary?: string }
  | { kind: 'broadcast'; text: string; summary?: string }
  | { kind: 'shutdown_request'; to: string; reason?: string }
  | { kind: 'shutdown_response'; requestId: string; approve: boolean; reason?: string }
  | { kind: 'plan_approval_response'; to: string; requestId: string; approve: boolean; feedback?: string };

export interface AgentView {
  name: string;
  agentId: string;
  agentType: string;
  status: string;
  lastActivity: string;
}

export interface TeamToolService {
  create(caller: string, teamName: string, description?: string): Promise<ToolResult>;
  delete(caller: string): Promise<ToolResult>;
  send(caller: string, message: OutgoingMessage): Promise<ToolResult>;
  list(): { teamName: string | null; agents: AgentView[] };
  spawn(req: SubagentRequest & { name: string; teamName?: string }, ctx: ToolContext): Promise<ToolResult>;
}

export function teamService(ctx: ToolContext): TeamToolService {
  const svc = ctx.services?.team;
  if (!svc) throw new ToolError('Agent teams are not available in this context');
  return svc;
}

/** Who is calling: a teammate's name, or the lead. */
export function callerName(ctx: ToolContext): string {
  return ctx.services?.teamMember ?? TEAM_LEAD;
}
