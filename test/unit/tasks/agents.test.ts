// Agent definitions: the built-ins, the three custom sources, tool subsets, model choice.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentCatalog, agentToolNames, parseAgentRecord, parseAgentsFlag } from '../../../src/agents/definitions.js';
import { parse as parseYaml } from 'yaml';
import { loadAgentDir, parseAgentMarkdown } from '../../../src/agents/markdownAgents.js';
import { resolveSubagentModel } from '../../../src/agents/prepareAgent.js';
import { tempDir } from '../tools/helpers.js';

const ALL = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'Task', 'Agent', 'TaskOutput', 'TaskStop', 'TodoWrite'];

describe('agent definitions', () => {
  it('general-purpose gets every tool but Task/Agent; Explore gets Read, Glob, Grep, Bash', () => {
    const c = new AgentCatalog();
    expect(c.names()).toEqual(['general-purpose', 'Explore']);
    expect(agentToolNames(c.get('general-purpose')!, ALL)).toEqual([
      'Bash',
      'Read',
      'Write',
      'Edit',
      'Glob',
      'Grep',
      'TaskOutput',
      'TaskStop',
      'TodoWrite',
    ]);
    expect(agentToolNames(c.get('Explore')!, ALL)).toEqual(['Bash', 'Read', 'Glob', 'Grep']);
  });

  it('a listed tool set is exact (unknown names and Task are dropped); disallowedTools removes', () => {
    expect(agentToolNames({ tools: ['Grep', 'Read', 'Task', 'Nope'] }, ALL)).toEqual(['Read', 'Grep']);
    expect(agentToolNames({ tools: ['*'], disallowedTools: ['Bash'] }, ALL)).not.toContain('Bash');
  });

  it('later sources win by name: built-in < user < project < --agents < initialize', () => {
    const c = new AgentCatalog();
    c.set('project', [{ name: 'x', description: 'project', prompt: 'p', source: 'project' }]);
    c.set('flag', parseAgentsFlag('{"x": {"description": "flag", "prompt": "f"}}'));
    expect(c.get('x')?.description).toBe('flag');
    c.set(
      'sdk',
      parseAgentRecord(
        { x: { description: 'sdk', prompt: 's' }, Explore: { description: 'mine', prompt: 'e' } },
        'sdk',
      ),
    );
    expect(c.get('x')?.description).toBe('sdk');
    expect(c.get('Explore')?.description).toBe('mine');
    expect(c.names()).toEqual(['general-purpose', 'Explore', 'x']);
  });

  it('bad definitions are refused with the reason', () => {
    expect(() => parseAgentsFlag('{nope')).toThrow(/--agents: not valid JSON/);
    expect(() => parseAgentsFlag('{"a": {"prompt": "p"}}')).toThrow(/agent "a": description/);
    expect(() => parseAgentRecord([], 'sdk')).toThrow(/JSON object/);
  });

  it('model: inherit and absent use the parent model; default is the session default; aliases resolve; ids pass through', () => {
    const scope = { parentModel: 'parent-model', sessionDefault: 'env-model' };
    expect(resolveSubagentModel(undefined, scope)).toBe('parent-model');
    expect(resolveSubagentModel('inherit', scope)).toBe('parent-model');
    // As set_model "default": the session's default (ANTHROPIC_MODEL here), not the built-in one.
    expect(resolveSubagentModel('default', scope)).toBe('env-model');
    expect(resolveSubagentModel('haiku', scope)).toMatch(/^claude-haiku-/);
    expect(resolveSubagentModel('claude-x-1', scope)).toBe('claude-x-1');
  });
});

describe('.claude/agents/*.md', () => {
  it('front matter gives name, description, tools (comma list), model; the body is the system prompt', () => {
    const d = parseAgentMarkdown(
      '---\nname: reviewer\ndescription: "Reviews: carefully"\ntools: Read, Grep,Glob\nmodel: opus\n---\n\nYou review code.\n\nBe brief.\n',
      'project',
      undefined,
      parseYaml,
    );
    expect(d).toEqual({
      name: 'reviewer',
      description: 'Reviews: carefully',
      prompt: 'You review code.\n\nBe brief.',
      tools: ['Read', 'Grep', 'Glob'],
      model: 'opus',
      source: 'project',
    });
  });

  it('a YAML list of tools and a folded description work; a missing name falls back to the file name', () => {
    const d = parseAgentMarkdown(
      '---\ndescription: >\n  Long\n  text\ntools:\n  - Read\n  - Bash\n---\nBody',
      'user',
      'from-file',
      parseYaml,
    );
    expect(d).toMatchObject({ name: 'from-file', description: 'Long text', tools: ['Read', 'Bash'], prompt: 'Body' });
  });

  it('a directory load skips and reports bad files', async () => {
    const dir = join(tempDir(), 'agents');
    mkdirSync(dir);
    writeFileSync(join(dir, 'good.md'), '---\nname: good\ndescription: ok\n---\nPrompt');
    writeFileSync(join(dir, 'bad.md'), 'no front matter');
    writeFileSync(join(dir, 'nodesc.md'), '---\nname: x\n---\nP');
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const { agents, problems } = await loadAgentDir(dir, 'project');
    expect(agents.map((a) => a.name)).toEqual(['good']);
    expect(problems.map((p) => p.problem).sort()).toEqual([
      'front matter has no description',
      'no front matter (the file must start with a --- block)',
    ]);
    expect(await loadAgentDir(join(dir, 'missing'), 'project')).toEqual({ agents: [], problems: [] });
  });
});
