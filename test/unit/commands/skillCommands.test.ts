import { describe, expect, it } from 'vitest';
import { SlashCommands } from '../../../src/commands/slashCommands.js';
import { skillCommands } from '../../../src/skills/skillCommands.js';

const skill = (name: string, body: string, extra: object = {}) => ({
  name,
  description: `${name} things`,
  allowedTools: [],
  body,
  dir: `/p/.claude/skills/${name}`,
  source: 'project' as const,
  ...extra,
});

describe('skills as slash commands', () => {
  it('lists each skill after the other commands (no name taken twice) and runs it as its prompt', async () => {
    const session = { clear() {}, costText: () => '', contextText: () => '', model: () => 'm' };
    const slash = new SlashCommands([], () => ({}) as never, session);
    slash.addSource(
      skillCommands(() => [
        skill('tidy', 'Sort the imports of $ARGUMENTS.', { allowedTools: ['Edit'], model: 'haiku' }),
        skill('plain', 'Do the plain thing.'),
        skill('help', 'shadowed by the built-in'),
      ]),
    );
    const listed = slash.list();
    expect(listed.filter((c) => c.name === 'help')).toHaveLength(1);
    expect(listed.at(-2)).toEqual({ name: 'tidy', description: 'tidy things (skill)', argumentHint: '' });
    expect(await slash.run('/tidy src/a.ts')).toEqual({
      kind: 'prompt',
      prompt: 'Base directory for this skill: /p/.claude/skills/tidy\n\nSort the imports of src/a.ts.',
      allowedTools: ['Edit'],
      model: 'haiku',
    });
    expect(await slash.run('/plain now')).toMatchObject({
      prompt: 'Base directory for this skill: /p/.claude/skills/plain\n\nDo the plain thing.\n\nARGUMENTS: now',
    });
  });
});
