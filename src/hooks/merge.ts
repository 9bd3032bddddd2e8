// Merges the results of every hook of one event: deny > ask > allow, any block blocks, any
// continue:false stops, messages and context are gathered in hook order.
import type { HookEvent, HookOutcome, HookResult, PermissionRequestAnswer } from './events.js';
import { PLAIN_STDOUT_IS_CONTEXT } from './events.js';

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

export function emptyOutcome(): HookOutcome {
  return { systemMessages: [], additionalContext: [], suppressOutput: false };
}

export function mergeResults(event: HookEvent, results: HookResult[]): HookOutcome {
  const out = emptyOutcome();
  const blocks: string[] = [];
  const stops: string[] = [];
  let stopped = false;
  const decisionReasons: Record<'allow' | 'ask' | 'deny', string[]> = { allow: [], ask: [], deny: [] };
  for (const r of results) {
    if (r.kind === 'block') {
      blocks.push(r.reason);
      continue;
    }
    if (r.kind === 'text') {
      if (PLAIN_STDOUT_IS_CONTEXT.has(event)) out.additionalContext.push(r.text);
      continue;
    }
    if (r.kind !== 'output') continue;
    const o = r.output;
    if (o.continue === false) {
      stopped = true;
      if (o.stopReason) stops.push(o.stopReason);
    }
    if (o.suppressOutput) out.suppressOutput = true;
    if (o.systemMessage) out.systemMessages.push(o.systemMessage);
    if (o.decision === 'block') blocks.push(o.reason || `blocked by a ${event} hook`);
    const hso = o.hookSpecificOutput;
    // Legacy `decision:"approve"` of PreToolUse means allow.
    let decision =
      hso?.permissionDecision ?? (o.decision === 'approve' && event === 'PreToolUse' ? 'allow' : undefined);
    if (event !== 'PreToolUse') decision = undefined;
    if (decision) {
      if (!out.permissionDecision || RANK[decision] > RANK[out.permissionDecision]) out.permissionDecision = decision;
      const reason = hso?.permissionDecisionReason ?? o.reason;
      if (reason) decisionReasons[decision].push(reason);
    }
    if (hso?.updatedInput && event === 'PreToolUse') out.updatedInput = hso.updatedInput;
    if (hso?.additionalContext) out.additionalContext.push(hso.additionalContext);
    if (hso?.action && (event === 'Elicitation' || event === 'ElicitationResult')) {
      const next = { action: hso.action, ...(hso.content ? { content: hso.content } : {}) };
      if (!out.elicitation || out.elicitation.action === 'accept') out.elicitation = next;
    }
    if (hso?.decision && event === 'PermissionRequest')
      out.permissionRequest = pickAnswer(out.permissionRequest, hso.decision as PermissionRequestAnswer);
  }
  if (blocks.length > 0) out.blockReason = blocks.join('\n');
  if (stopped) out.stop = { reason: stops.join('\n') || `a ${event} hook stopped the run` };
  if (out.permissionDecision && decisionReasons[out.permissionDecision].length > 0) {
    out.permissionDecisionReason = decisionReasons[out.permissionDecision].join('\n');
  }
  return out;
}

function pickAnswer(prev: PermissionRequestAnswer | undefined, next: PermissionRequestAnswer): PermissionRequestAnswer {
  if (!prev) return next;
  return prev.behavior === 'deny' ? prev : next;
}
