import { EDIT_RULE_NAMES, READ_RULE, type ToolKind } from '../../tools/tool.js';

// Rule grammar: `Tool`, `Tool(specifier)`, `mcp__server`, `mcp__server__tool`, `mcp__server__*`.
export interface PermissionRule {
  toolName: string;
  /** The text between the parentheses; absent for a whole-tool rule. */
  ruleContent?: string;
}

export type RuleBehavior = 'allow' | 'deny' | 'ask';

export class RuleSyntaxError extends Error {
  constructor(rule: string, why: string) {
    super(`invalid permission rule ${JSON.stringify(rule)}: ${why}`);
    this.name = 'RuleSyntaxError';
  }
}

const TOOL_NAME = /^[A-Za-z0-9_.\-*]+$/;

export function parseRule(s: string): PermissionRule {
  const text = s.trim();
  if (text === '') throw new RuleSyntaxError(s, 'empty rule');
  const open = text.indexOf('(');
  if (open === -1) {
    if (!TOOL_NAME.test(text)) throw new RuleSyntaxError(s, 'tool name has unexpected characters');
    return { toolName: text };
  }
  if (!text.endsWith(')')) throw new RuleSyntaxError(s, 'missing closing parenthesis');
  const toolName = text.slice(0, open).trim();
  if (!TOOL_NAME.test(toolName)) throw new RuleSyntaxError(s, 'tool name has unexpected characters');
  const content = text.slice(open + 1, -1).trim();
  // `Bash()` and `Bash(*)` mean the whole tool, as the reference reads them.
  if (content === '' || content === '*') return { toolName };
  return { toolName, ruleContent: content };
}

export function formatRule(rule: PermissionRule): string {
  return rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
}

/**
 * Does the rule name this tool (ignoring its specifier)? Besides its own name, a tool is named by
 * its kind's path rules: `Read(…)` covers read and search tools, any edit spelling covers edit tools.
 */
export function ruleNamesTool(
  rule: PermissionRule,
  toolName: string,
  kind?: ToolKind,
  tool?: { name: string; legacyName?: string },
): boolean {
  const r = rule.toolName;
  // A tool's legacy name and its own are one tool: `Task` rules hold for `Agent` calls and back.
  if (r === toolName || (tool !== undefined && (r === tool.name || r === tool.legacyName))) return true;
  if (r.startsWith('mcp__')) {
    // mcp__server and mcp__server__* both cover every tool of the server.
    const server = r.endsWith('__*') ? r.slice(0, -3) : r;
    if (server.split('__').length === 2) return toolName.startsWith(`${server}__`);
    return false;
  }
  if (r === READ_RULE && (kind === 'read' || kind === 'search')) return true;
  if (EDIT_RULE_NAMES.has(r) && kind === 'edit') return true;
  return false;
}

/** The SDK's PermissionRuleValue shape, as sent in updatedPermissions / permission_suggestions. */
export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string;
}

export function ruleFromValue(v: PermissionRuleValue): PermissionRule {
  return v.ruleContent === undefined || v.ruleContent === ''
    ? { toolName: v.toolName }
    : parseRule(`${v.toolName}(${v.ruleContent})`);
}
