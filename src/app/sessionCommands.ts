// The session's slash commands (src/commands) acting on the running session: /clear, /cost,
// /context, /model; and a command's allowed-tools, checked before its turn runs.
import { setupCommands } from '../commands/setup.js';
import type { SlashCommands, SlashOutcome } from '../commands/slashCommands.js';
import type { PermissionState } from '../permissions/state.js';
import { parseRule } from '../permissions/rules.js';
import type { SessionRunner, SessionSettings } from '../session/runner.js';
import type { SessionControls } from '../session/sessionControls.js';
import type { ToolSet } from '../../tools/toolSet.js';
import type { Late } from './late.js';
import { type SessionConfig, sessionModel, turnModel } from './sessionConfig.js';

export function setupSessionCommands(p: {
  config: SessionConfig;
  projectRoot: string | undefined;
  env: NodeJS.ProcessEnv;
  tools: ToolSet;
  permissions: PermissionState;
  settings: SessionSettings;
  runner: Late<SessionRunner>;
  controls: Late<SessionControls>;
}): Promise<SlashCommands> {
  return setupCommands({
    cwd: p.config.cwd,
    projectRoot: p.projectRoot,
    env: p.env,
    sources: p.config.sources,
    tools: () => p.tools.list(),
    permissions: () => p.permissions,
    session: {
      clear: () => {
        const runner = p.runner.get();
        runner.history.length = 0;
        runner.readFiles.clear();
      },
      costText: () => `Total cost: $${p.runner.get().spentSoFar().toFixed(4)}`,
      contextText: () => {
        const u = p.controls.get().contextUsage('summary');
        const n = (x: number) => x.toLocaleString('en-US');
        return [
          `Context usage · ${u.model}: ${n(u.totalTokens)} / ${n(u.maxTokens)} tokens (${u.percentage}%)`,
          ...u.categories.map((c) => `  ${c.name}: ${n(c.tokens)}`),
        ].join('\n');
      },
      model: (name) => {
        if (name) p.settings.model = sessionModel(p.config, name);
        return p.settings.model;
      },
      hasTool: (name) => p.tools.has(name),
    },
  });
}

/**
 * Runs a `/name …` prompt; a prompt command's allowed-tools must be rules, and its model is
 * resolved against the session's default (`model: default` is it; `inherit` keeps the turn's).
 */
export async function runSlashCommand(
  slash: SlashCommands,
  text: string,
  config: Pick<SessionConfig, 'defaultModel'>,
): Promise<SlashOutcome | undefined> {
  const out = await slash.run(text);
  if (out?.kind !== 'prompt') return out;
  for (const r of out.allowedTools) {
    try {
      parseRule(r);
    } catch (err) {
      return { kind: 'local', text: `${text.split(/\s/)[0]}: allowed-tools: ${(err as Error).message}`, isError: true };
    }
  }
  if (!out.model) return out;
  return { ...out, model: turnModel(config, out.model) };
}

/** A command's or a skill's allowed-tools as allow rules until its turn ends; returns their removal. */
export function allowRulesForTurn(permissions: PermissionState, rules: string[]): () => void {
  const allow = permissions.rules.allow;
  const entries = rules.map((r) => permissions.compile(parseRule(r)));
  allow.push(...entries);
  permissions.changed();
  return () => {
    for (const e of entries) allow.splice(allow.indexOf(e), 1);
    permissions.changed();
  };
}
