// Skills as slash commands: `/name args` typed by a person loads the skill's instructions as the
// turn's prompt (as the reference does, and as the Skill tool's result reads), with its
// allowed-tools and model for that turn, like a custom command's.
import type { ExtraCommand } from '../commands/slashCommands.js';
import type { SkillEntry } from '../../tools/skill.js';

/** The prompt `/skill args` sends: the skill's folder, its body with $ARGUMENTS filled in (or the arguments after it). */
export function skillPrompt(s: SkillEntry, args: string): string {
  const a = args.trim();
  const takesArgs = s.body.includes('$ARGUMENTS');
  const body = takesArgs ? s.body.replaceAll('$ARGUMENTS', a) : s.body;
  return [`Base directory for this skill: ${s.dir}`, body.trim(), ...(a && !takesArgs ? [`ARGUMENTS: ${a}`] : [])].join(
    '\n\n',
  );
}

export function skillCommands(skills: () => SkillEntry[]): () => ExtraCommand[] {
  return () =>
    skills().map((s) => ({
      name: s.name,
      description: `${s.description} (skill)`,
      argumentHint: '',
      run: async (args) => ({
        kind: 'prompt' as const,
        prompt: skillPrompt(s, args),
        allowedTools: s.allowedTools,
        // As given: runSlashCommand reads it by the model rule (`inherit` keeps the turn's model).
        ...(s.model ? { model: s.model } : {}),
      }),
    }));
}
