// The session's workflow service (ctx.services.workflows): checks a script and starts its run.
import { ToolError, type ToolContext } from '../../tools/tool.js';
import type { WorkflowLaunch, WorkflowService } from '../../tools/workflow.js';
import { nondeterministicCall, parseWorkflowScript } from './script.js';
import { launchWorkflow, type WorkflowRunDeps } from './workflowRun.js';

export function createWorkflowService(deps: WorkflowRunDeps): WorkflowService {
  return {
    async launch(req, ctx: ToolContext): Promise<WorkflowLaunch> {
      if (!ctx.loop) throw new ToolError('Workflow can only run inside a session run');
      const parsed = await parseWorkflowScript(req.script);
      if ('error' in parsed) throw new ToolError(`Invalid workflow script: ${parsed.error}`);
      // A script written in this call is checked now; a file's is stopped when the call runs.
      const call = req.inline ? await nondeterministicCall(parsed.body) : undefined;
      if (call)
        throw new ToolError(
          `Invalid workflow script: it calls ${call}, and workflow scripts must not depend on the clock or on chance. Pass a time in through args, or vary prompts by index.`,
        );
      return launchWorkflow(deps, ctx, parsed, req.script, {
        ...(req.args !== undefined ? { args: req.args } : {}),
        ...(req.scriptPath !== undefined ? { scriptPath: req.scriptPath } : {}),
      });
    },
  };
}
