// ListAgents: the team's live agents (name, type, status, last activity), so the model knows whom
// it can address with SendMessage.
import { z } from 'zod';
import { defineTool } from './tool.js';
import { teamService } from './teamService.js';

export const listAgentsInputSchema = z.object({});

export const ListAgentsTool = defineTool({
  name: 'ListAgents',
  description: `List the agents of your team that are still live (spawned with a name through the Task/Agent tool): each one's name, agent type, status (working or idle) and last activity. Address them with SendMessage; the lead is "team-lead".`,
  inputSchema: listAgentsInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(_input, ctx) {
    const { teamName, agents } = teamService(ctx).list();
    const lines = agents.map((a) => `- ${a.name} (${a.agentType}): ${a.status}, last activity ${a.lastActivity}`);
    const content = agents.length
      ? `Team ${teamName}: ${agents.length} live agent(s)\n${lines.join('\n')}`
      : 'No live agents. Spawn one with the Agent tool and a name.';
    return { content, data: { team_name: teamName, agents } };
  },
});
