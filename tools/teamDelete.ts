// TeamDelete: remove the team this agent leads (its directory and mailboxes). Refused while a
// teammate is still live: shut them down first.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool } from './tool.js';
import { callerName, teamService } from './teamService.js';

export const teamDeleteInputSchema = lazySchema(() => z.object({}));

export const TeamDeleteTool = defineTool({
  name: 'TeamDelete',
  description: `Delete the team you lead and its mailboxes, once every teammate has shut down (ask each with SendMessage type shutdown_request and wait for the approvals). Refused while a teammate is still live.`,
  inputSchema: teamDeleteInputSchema,
  isReadOnly: () => true, // no change to the user's files: only the team's own state
  isConcurrencySafe: () => false,
  async *call(_input, ctx) {
    return await teamService(ctx).delete(callerName(ctx));
  },
});
