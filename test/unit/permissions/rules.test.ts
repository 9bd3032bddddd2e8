import { describe, expect, it } from 'vitest';
import { formatRule, parseRule, RuleSyntaxError } from '../../../src/permissions/index.js';
import { ruleNamesTool } from '../../../src/permissions/rules.js';

describe('rule grammar', () => {
  it('parses whole-tool, specifier and mcp rules', () => {
    expect(parseRule('Bash')).toEqual({ toolName: 'Bash' });
    expect(parseRule('Bash(npm test:*)')).toEqual({ toolName: 'Bash', ruleContent: 'npm test:*' });
    expect(parseRule(' Read(./src/**) ')).toEqual({ toolName: 'Read', ruleContent: './src/**' });
    expect(parseRule('Bash(*)')).toEqual({ toolName: 'Bash' });
    expect(parseRule('mcp__github')).toEqual({ toolName: 'mcp__github' });
    expect(formatRule(parseRule('Bash(echo:*)'))).toBe('Bash(echo:*)');
  });

  it('rejects malformed rules with a message naming the rule', () => {
    expect(() => parseRule('Bash(npm test')).toThrow(RuleSyntaxError);
    expect(() => parseRule('Bash(npm test')).toThrow(/Bash\(npm test.*closing parenthesis/);
    expect(() => parseRule('')).toThrow(/empty/);
    expect(() => parseRule('Ba sh')).toThrow(/tool name/);
  });

  it('names tools: mcp server rules cover the server, Read covers Glob/Grep, Edit covers Write', () => {
    expect(ruleNamesTool(parseRule('mcp__github'), 'mcp__github__create_issue')).toBe(true);
    expect(ruleNamesTool(parseRule('mcp__github__*'), 'mcp__github__create_issue')).toBe(true);
    expect(ruleNamesTool(parseRule('mcp__github__create_issue'), 'mcp__github__create_issue')).toBe(true);
    expect(ruleNamesTool(parseRule('mcp__github__create_issue'), 'mcp__github__delete_repo')).toBe(false);
    expect(ruleNamesTool(parseRule('mcp__github'), 'mcp__githubx__t')).toBe(false);
    // Path rules name tools by kind: Read covers read and search tools, Edit covers edit tools.
    expect(ruleNamesTool(parseRule('Read'), 'Grep', 'search')).toBe(true);
    expect(ruleNamesTool(parseRule('Edit'), 'Write', 'edit')).toBe(true);
    expect(ruleNamesTool(parseRule('Edit'), 'Read', 'read')).toBe(false);
    expect(ruleNamesTool(parseRule('Read'), 'Grep')).toBe(false);
    expect(ruleNamesTool(parseRule('Bash'), 'BashOutput')).toBe(false);
  });
});
