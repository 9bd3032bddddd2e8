// Whether the Workflow tool is offered: only when the user opted in. The reference's settings and
// variables are read: `enableWorkflows` (settings) or CLAUDE_CODE_WORKFLOWS=1 turn it on;
// `disableWorkflows` (settings), CLAUDE_CODE_DISABLE_WORKFLOWS or CLAUDE_CODE_WORKFLOWS=0 turn it
// off and win. Unlike the reference (2.1.330 offers it by default to an API-key user), nothing is
// on by default: a workflow starts many agents, and the user asks for that explicitly.
function isTruthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function isFalsy(v: string | undefined): boolean {
  return v !== undefined && (v === '0' || v.toLowerCase() === 'false');
}

export function workflowsEnabled(settings: Record<string, unknown>, env: NodeJS.ProcessEnv): boolean {
  if (settings.disableWorkflows === true || isTruthy(env.CLAUDE_CODE_DISABLE_WORKFLOWS)) return false;
  if (isFalsy(env.CLAUDE_CODE_WORKFLOWS)) return false;
  return settings.enableWorkflows === true || isTruthy(env.CLAUDE_CODE_WORKFLOWS);
}
