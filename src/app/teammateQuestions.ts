// How the lead answers a permission question one of its process teammates forwarded
// (src/teams/permissionDesk.ts): as it answers its own. Its rules and mode first (the teammate was
// started with the lead's flags, but the lead's mode may have moved since); what they leave open goes
// to the lead's host (can_use_tool, with the teammate's agent id) or the terminal's dialog. With
// neither, undefined: the desk denies it, saying the lead had nobody to ask.
import { findTool } from '../../tools/registry.js';
import { prepareCall } from '../../tools/toolCall.js';
import type { PipelineDeps } from '../loop/toolPipeline.js';
import { decidePermission } from '../permissions/decision.js';
import type { TeammateQuestionAnswerer } from '../teams/permissionDesk.js';

export function teammateQuestionAnswerer(pipeline: () => PipelineDeps): TeammateQuestionAnswerer {
  return async (req, signal) => {
    const p = pipeline();
    const tool = findTool(p.tools, req.tool_name);
    // A plan is the person's to approve: no rule answers it.
    if (tool && p.permissions && req.tool_name !== 'ExitPlanMode') {
      const prepared = prepareCall(tool, req.input);
      if (!prepared.ok)
        return {
          behavior: 'deny',
          message: `the input does not fit ${req.tool_name}'s schema, so the lead refused it`,
        };
      const d = decidePermission(p.permissions, { call: prepared.call });
      if (d.behavior === 'allow') return { behavior: 'allow' };
      if (d.behavior === 'deny') return { behavior: 'deny', message: d.message };
      if (d.suggestions?.length && !req.permission_suggestions) req.permission_suggestions = d.suggestions;
      req.decision_reason = d.reason;
      if (d.reasonType) req.decision_reason_type = d.reasonType;
    }
    if (p.noApprovalSurface || !p.askHost) return undefined;
    return p.askHost(req, signal);
  };
}
