// Every place that turns a model name someone gave into a model reads `default` the way set_model
// "default" does: the session's default (here ANTHROPIC_MODEL's), never the built-in one. One rule
// (src/loop/models.ts chooseModel), reached from --agent's model, a skill's, a command's.
import { describe, expect, it } from 'vitest';
import { ToolSet } from '../../../tools/toolSet.js';
import { AgentCatalog } from '../../../src/agents/definitions.js';
import { setupMainAgent } from '../../../src/app/mainAgentSetup.js';
import { resolveSessionConfig, sessionModel } from '../../../src/app/sessionConfig.js';
import { runSlashCommand } from '../../../src/app/sessionCommands.js';
import { createSkillActivation } from '../../../src/app/toolServices.js';
import { parseOptions } from '../../../src/cli/options.js';
import { SlashCommands, type SessionView } from '../../../src/commands/slashCommands.js';
import type { SessionSettings } from '../../../src/session/runner.js';
import { TurnScope } from '../../../src/session/turnScope.js';
import { ALL_SOURCES, type LoadedSettings } from '../../../src/settings/index.js';
import { skillCommands } from '../../../src/skills/skillCommands.js';

const loaded = { settings: {}, files: [], permissions: {}, hooks: {} } as unknown as LoadedSettings;

/** The session config of `agent [argv]` with ANTHROPIC_MODEL=claude-haiku-4-5. */
function configOf(argv: string[] = []) {
  const parsed = parseOptions(argv);
  if (parsed.kind !== 'run') throw new Error('options did not parse');
  const env = { ANTHROPIC_MODEL: 'claude-haiku-4-5' };
  return resolveSessionConfig(parsed.options, { cwd: '/work', env, loaded, interactive: false, sources: ALL_SOURCES })
    .config;
}

function mainAgentWith(model: string | undefined, o: { modelFlag?: boolean; argv?: string[] } = {}) {
  const config = configOf(o.argv);
  const catalog = new AgentCatalog();
  catalog.set('flag', [{ name: 'helper', description: 'Helps', prompt: 'You help.', model, source: 'flag' }]);
  const settings = { model: config.defaultModel } as SessionSettings;
  const agent = setupMainAgent('helper', {
    catalog,
    lookUpLater: false,
    modelFlag: o.modelFlag ?? false,
    defaultModel: config.defaultModel,
    systemParts: { cwd: '/work', append: [] },
    settings,
    tools: new ToolSet([]),
  });
  agent.apply();
  return settings.model;
}

describe('the model rule, written once', () => {
  it('set_model "default" is the session default: ANTHROPIC_MODEL when --model is not given', () => {
    expect(sessionModel(configOf(), 'default')).toBe('claude-haiku-4-5');
  });

  it("--agent's model: default is the session default; inherit and none keep it; an alias resolves", () => {
    expect(mainAgentWith('default')).toBe('claude-haiku-4-5');
    expect(mainAgentWith('inherit')).toBe('claude-haiku-4-5');
    expect(mainAgentWith(undefined)).toBe('claude-haiku-4-5');
    expect(mainAgentWith('sonnet')).toBe('claude-sonnet-5-5');
  });

  it('--model beats the agent definition, which beats ANTHROPIC_MODEL (docs/models.md)', () => {
    expect(mainAgentWith('sonnet', { modelFlag: true, argv: ['--model', 'opus'] })).toBe('claude-opus-5-5');
    expect(mainAgentWith('sonnet')).toBe('claude-sonnet-5-5');
  });

  it("a skill's model: default is the session default for the turn", () => {
    const turn = new TurnScope();
    turn.begin();
    const skills = createSkillActivation(turn, configOf());
    expect(skills.activate({ name: 'deploy', allowedTools: [], model: 'default' })).toEqual({
      allowedTools: [],
      model: 'claude-haiku-4-5',
    });
    expect(turn.model).toBe('claude-haiku-4-5');
  });

  it("a command's model: default is the session default; inherit sets no model for the turn", async () => {
    const slash = new SlashCommands([], () => ({}) as never, {} as SessionView);
    slash.addSource(() =>
      ['default', 'inherit', 'sonnet'].map((model) => ({
        name: `cmd-${model}`,
        description: '',
        argumentHint: '',
        run: async () => ({ kind: 'prompt' as const, prompt: 'go', model, allowedTools: [] }),
      })),
    );
    const config = configOf();
    const modelOf = async (name: string) => {
      const out = await runSlashCommand(slash, `/${name}`, config);
      return out?.kind === 'prompt' ? out.model : 'not a prompt';
    };
    expect(await modelOf('cmd-default')).toBe('claude-haiku-4-5');
    expect(await modelOf('cmd-inherit')).toBeUndefined();
    expect(await modelOf('cmd-sonnet')).toBe('claude-sonnet-5-5');
  });

  it("a skill's model as written (the Skill tool's and `/skill`'s) goes through the same rule: inherit sets none", async () => {
    const turn = new TurnScope();
    turn.begin();
    const skills = createSkillActivation(turn, configOf());
    expect(skills.activate({ name: 'deploy', allowedTools: [], model: 'inherit' })).toEqual({ allowedTools: [] });
    expect(turn.model).toBeUndefined();
    expect(skills.activate({ name: 'deploy', allowedTools: [], model: 'sonnet' }).model).toBe('claude-sonnet-5-5');
    const entry = (model: string) => ({
      name: `skill-${model}`,
      description: '',
      allowedTools: [],
      model,
      body: 'go',
      dir: '/s',
      source: 'project' as const,
    });
    const slash = new SlashCommands([], () => ({}) as never, {} as SessionView);
    slash.addSource(skillCommands(() => ['inherit', 'default'].map(entry)));
    const config = configOf();
    const modelOf = async (name: string) => {
      const out = await runSlashCommand(slash, `/${name}`, config);
      return out?.kind === 'prompt' ? out.model : 'not a prompt';
    };
    expect(await modelOf('skill-inherit')).toBeUndefined();
    expect(await modelOf('skill-default')).toBe('claude-haiku-4-5');
  });
});
