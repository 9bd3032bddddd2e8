// The team as a teammate process sees it: another program leads (claude-code-controller, the
// reference CLI, or this runtime), and everything goes through the team directory. SendMessage
// writes to inboxes; a shutdown answer goes to the lead named in config.json (`leadAgentId`, never
// assumed to be "team-lead"), and an approval ends this process once its turn is over. A teammate
// forms no team and spawns no teammates.
import { ToolError, type ToolResult } from '../../tools/tool.js';
import { TEAM_LEAD, type AgentView, type OutgoingMessage, type TeamToolService } from '../../tools/teamService.js';
import type { Mailbox } from './mailbox.js';
import { leadNameOf, readTeamFile, type TeamFile } from './teamConfig.js';
import type { TeammateIdentity } from './teammateFlags.js';

export interface ProcessTeamDeps {
  me: TeammateIdentity;
  teamDir: string;
  mailbox: Mailbox;
  /** Called when this teammate approved a shutdown request. */
  onShutdownApproved: (requestId: string) => void;
}

export class ProcessTeam implements TeamToolService {
  constructor(private readonly d: ProcessTeamDeps) {}

  /** The team file as it is now (the lead may add or remove members at any time). */
  file(): TeamFile {
    return readTeamFile(this.d.teamDir);
  }

  get lead(): string {
    return leadNameOf(this.file());
  }

  async create(): Promise<ToolResult> {
    throw new ToolError(`You are teammate "${this.d.me.name}" of team "${this.d.me.team}": only the lead forms teams.`);
  }

  async delete(): Promise<ToolResult> {
    throw new ToolError(`You are teammate "${this.d.me.name}": only the lead deletes the team.`);
  }

  async spawn(): Promise<ToolResult> {
    throw new ToolError(
      'A teammate cannot start teammates of its own; ask the lead (SendMessage) if more hands are needed.',
    );
  }

  list(): { teamName: string | null; agents: AgentView[] } {
    let file: TeamFile;
    try {
      file = this.file();
    } catch {
      return { teamName: this.d.me.team, agents: [] };
    }
    const lead = leadNameOf(file);
    const agents = file.members
      .filter((m) => m.name !== this.d.me.name)
      .map((m) => ({
        name: m.name,
        agentId: m.agentId ?? `${m.name}@${this.d.me.team}`,
        agentType: typeof m.agentType === 'string' ? m.agentType : m.name === lead ? 'lead' : 'teammate',
        status: m.name === lead ? 'lead' : typeof m.status === 'string' ? m.status : 'member',
        lastActivity: new Date(typeof m.joinedAt === 'number' ? m.joinedAt : 0).toISOString(),
      }));
    return { teamName: file.name ?? this.d.me.team, agents };
  }

  async send(caller: string, msg: OutgoingMessage): Promise<ToolResult> {
    const file = this.file();
    const lead = leadNameOf(file);
    const names = new Set(file.members.map((m) => m.name));
    const deliver = async (to: string, text: string, summary?: string) => {
      try {
        await this.d.mailbox.deliver(to, {
          from: caller,
          text,
          ...(summary ? { summary } : {}),
          ...(this.d.me.color ? { color: this.d.me.color } : {}),
        });
      } catch (err) {
        throw new ToolError(`The message to "${to}" was not delivered: ${(err as Error).message}`);
      }
    };
    const recipient = (to: string) => {
      if (to === TEAM_LEAD || to === lead) return lead;
      if (to === caller) throw new ToolError('You cannot send a message to yourself');
      if (names.has(to)) return to;
      throw new ToolError(
        `Cannot send: no member named "${to}" in team "${this.d.me.team}". Members: ${[...names].filter((n) => n !== caller).join(', ') || 'none'}; the lead is "${lead}".`,
      );
    };
    switch (msg.kind) {
      case 'message': {
        const to = recipient(msg.to);
        await deliver(to, msg.text, msg.summary);
        const message = `Message sent to ${to}'s inbox`;
        return {
          content: message,
          data: {
            success: true,
            message,
            routing: { sender: caller, target: to, summary: msg.summary, content: msg.text },
          },
        };
      }
      case 'broadcast': {
        const targets = [...names].filter((n) => n !== caller);
        if (!targets.length) throw new ToolError('Nobody to broadcast to: the team has no other member');
        for (const to of targets) await deliver(to, msg.text, msg.summary);
        const message = `Message broadcast to ${targets.length} agent(s): ${targets.join(', ')}`;
        return { content: message, data: { success: true, message, recipients: targets } };
      }
      case 'shutdown_response': {
        if (!msg.approve && !msg.reason) throw new ToolError('Refusing a shutdown needs a reason (content / reason)');
        const answer = msg.approve
          ? {
              type: 'shutdown_approved',
              requestId: msg.requestId,
              from: caller,
              timestamp: new Date().toISOString(),
              backendType: 'process',
            }
          : {
              type: 'shutdown_rejected',
              requestId: msg.requestId,
              from: caller,
              reason: msg.reason,
              timestamp: new Date().toISOString(),
            };
        await deliver(lead, JSON.stringify(answer));
        if (msg.approve) this.d.onShutdownApproved(msg.requestId);
        const message = msg.approve
          ? 'Shutdown approved: this process ends once this turn is over.'
          : `Shutdown refused; ${lead} was told why. Carry on.`;
        return { content: message, data: { success: true, message, request_id: msg.requestId, approve: msg.approve } };
      }
      case 'shutdown_request':
      case 'plan_approval_response':
        throw new ToolError(`A ${msg.kind} is for the team lead ("${lead}") only`);
    }
  }
}
