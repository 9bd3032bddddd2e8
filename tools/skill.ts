// Skill {skill, args?}: loads one skill's instructions into the conversation (the tool result).
// The model sees only the names and descriptions (in this tool's description) until it calls it.
// A skill's allowed-tools and model hold for the rest of the turn that loaded it.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';

export interface SkillEntry {
  name: string;
  description: string;
  allowedTools: string[];
  model?: string;
  body: string;
  dir: string;
  source: 'user' | 'project' | 'plugin';
}

export const skillInputSchema = lazySchema(() =>
  z.object({
    skill: z.string().describe('The skill name, e.g. "pdf"'),
    args: z.string().optional().describe('Optional arguments for the skill'),
  }),
);

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
    // Loading instructions changes nothing, unless the skill pre-approves tools (allowed-tools):
    // then loading it is a permission decision of its own (a rule `Skill(name)`, the host, the mode).
    isReadOnly: (input) => !skills().find((x) => x.name === input.skill.trim().replace(/^\//, ''))?.allowedTools.length,
    isConcurrencySafe: () => true,
    label: (input) => `Skill: ${input.skill}`,
    // `Skill(pdf)` names calls of one skill.
    matchesRuleContent: (content, input) => input.skill === content,
    // eslint-disable-next-line require-yield
    async *call(input, ctx) {
      const name = input.skill.trim().replace(/^\//, '');
      const all = skills();
      const s = all.find((x) => x.name === name);
      if (!s)
        throw new ToolError(`Unknown skill: ${name}. Available skills: ${all.map((x) => x.name).join(', ') || 'none'}`);
      // The skill's allowed-tools run without asking, and its model answers, for the rest of this
      // turn (deny rules, hooks and the mode still apply). Where that cannot be done, the model is told.
      const notes: string[] = [];
      const wanted = s.allowedTools.length > 0 || (s.model !== undefined && s.model !== 'inherit');
      let applied: { allowedTools: string[]; model?: string } | undefined;
      if (wanted) {
        const service = ctx.services?.skills;
        if (!service)
          notes.push(
            `This skill's allowed-tools${s.model ? ' and model' : ''} are not applied in a subagent: each call is permission-checked as usual, on this agent's model.`,
          );
        else {
          try {
            applied = service.activate({
              name: s.name,
              allowedTools: s.allowedTools,
              // As written: the service reads it by the model rule (`inherit` sets none).
              ...(s.model ? { model: s.model } : {}),
            });
          } catch (err) {
            throw new ToolError(`Skill ${s.name} cannot be loaded: ${(err as Error).message}`);
          }
          if (applied.allowedTools.length)
            notes.push(`Allowed without asking while this skill runs (this turn): ${applied.allowedTools.join(', ')}.`);
          if (applied.model) notes.push(`This skill runs on the model ${applied.model} for the rest of this turn.`);
        }
      }
      const text = [
        `Base directory for this skill: ${s.dir}`,
        s.body,
        ...(input.args ? [`ARGUMENTS: ${input.args}`] : []),
        ...notes,
      ].join('\n\n');
      return {
        content: text,
        data: {
          success: true,
          commandName: s.name,
          ...(applied?.allowedTools.length ? { allowedTools: applied.allowedTools } : {}),
          ...(applied?.model ? { model: applied.model } : {}),
        },
      };
    },
  });
}
