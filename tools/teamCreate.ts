// TeamCreate (agent teams, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1): start a named team that this
// agent leads; teammates then join it with Agent {name, team_name}.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool } from './tool.js';
import { callerName, teamService } from './teamService.js';

export const teamCreateInputSchema = lazySchema(() =>
  z.object({
    team_name: z.string().min(1).describe('Name of the team to create'),
    description: z.string().optional().describe('What the team is for'),
    agent_type: z.string().optional().describe('Type of the team lead agent (informational)'),
  }),
);

export const TeamCreateTool = defineTool({
  name: 'TeamCreate',
  description: `Create a team of agents that you lead. Then spawn teammates into it with the Agent tool (give each a \`name\` and this \`team_name\`); they work in parallel, each in its own conversation, and talk to you and to each other with SendMessage. Their messages reach you as <teammate-message> turns, also after you have answered. When the work is done, ask each teammate to shut down (SendMessage type shutdown_request), then TeamDelete.`,
  inputSchema: teamCreateInputSchema,
  isReadOnly: () => true, // no change to the user's files: only the team's own state
  isConcurrencySafe: () => false,
  async *call(input, ctx) {
    return await teamService(ctx).create(callerName(ctx), input.team_name, input.description);
  },
});
