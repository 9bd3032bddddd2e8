// Skill {skill, args?}: loads one skill's instructions into the conversation (the tool result).
// The model sees only the names and descriptions (in this tool's description) until it calls it.
import { z } from 'zod';
import { defineTool, ToolError } from './tool.js';

export interface SkillEntry {
  name: string;
  description: string;
  allowedTools: string[];
  model?: string;
  body: string;
  dir: string;
  source: 'user' | 'project';
}

export const skillInputSchema = z.object({
  skill: z.string().describe('The skill name, e.g. "pdf"'),
  args: z.string().optional().describe('Optional arguments for the skill'),
});

function describe(skills: SkillEntry[]): string {
  return `Execute a skill within the main conversation. Skills give you specialized instructions for a task. When a user's request matches a skill below, call this tool with its name before doing the task yourself; its full instructions come back as the result.

Available skills:
${skills.map((s) => `- ${s.name}: ${s.description}`).join('\n') || '(none)'}`;
}

export function makeSkillTool(skills: () => SkillEntry[]) {
  return defineTool({
    name: 'Skill',
    get description() {
      return describe(skills());
    },
    inputSchema: skillInputSchema,
    // Loading instructions changes nothing: the tools the skill then uses are each checked.
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    // eslint-disable-next-line require-yield
    async *call(input) {
      const name = input.skill.trim().replace(/^\//, '');
      const all = skills();
      const s = all.find((x) => x.name === name);
      if (!s) throw new ToolError(`Unknown skill: ${name}. Available skills: ${all.map((x) => x.name).join(', ') || 'none'}`);
      // Said to the model, not dropped: this runtime does not pre-approve a skill's tools or switch its model.
      const notes = [
        ...(s.allowedTools.length ? [`This skill lists allowed-tools (${s.allowedTools.join(', ')}); they are not pre-approved here: each call is permission-checked as usual.`] : []),
        ...(s.model ? [`This skill names the model ${s.model}; it runs on the session's model here.`] : []),
      ];
      const text = [`Base directory for this skill: ${s.dir}`, s.body, ...(input.args ? [`ARGUMENTS: ${input.args}`] : []), ...notes].join('\n\n');
      return { content: text, data: { success: true, commandName: s.name } };
    },
  });
}
