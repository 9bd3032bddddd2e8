// --agent NAME for the main thread (src/agents/mainAgent.ts): looked up at start when no
// initialize can bring the host's agents, else by initialize; applied before the first run.
import type { ToolSet } from '../../tools/toolSet.js';
import type { AgentCatalog, AgentDef } from '../agents/definitions.js';
import { agentAllowsTool, findMainAgent } from '../agents/mainAgent.js';
import { chooseModel } from '../loop/models.js';
import type { SystemPromptParts } from '../prompt/systemPrompt.js';
import type { SessionSettings } from '../session/runner.js';
import { StartupError } from '../session/guards.js';

export interface MainAgent {
  /** initialize: the name looked up now that the host's agents are known; throws when there is none. */
  check(): void;
  /** Before each run (once): the agent's prompt and model, and its tools narrow the offered ones. */
  apply(): void;
}

export function setupMainAgent(
  name: string | undefined,
  ctx: {
    catalog: AgentCatalog;
    /** Stream-json input: the host's agents come in initialize, so the name is looked up then. */
    lookUpLater: boolean;
    /** --model was given: it wins over the agent's (which wins over ANTHROPIC_MODEL: docs/models.md). */
    modelFlag: boolean;
    /** The session's default model: what the agent's `model: default` means. */
    defaultModel: string;
    systemParts: SystemPromptParts;
    settings: SessionSettings;
    tools: ToolSet;
  },
): MainAgent {
  const lookup = (n: string) => findMainAgent(n, (a) => ctx.catalog.get(a), ctx.catalog.names());
  if (name !== undefined && !ctx.lookUpLater) {
    try {
      lookup(name);
    } catch (err) {
      throw new StartupError((err as Error).message, 2);
    }
  }
  let applied: AgentDef | undefined;
  return {
    check() {
      if (name !== undefined) lookup(name);
    },
    apply() {
      if (name === undefined || applied) return;
      const def = (applied = lookup(name));
      // The host's or --system-prompt's own text wins; an empty one (what the SDK sends by default) does not.
      const custom = ctx.systemParts.custom;
      if (custom === undefined || custom === '' || (Array.isArray(custom) && custom.join('') === ''))
        ctx.systemParts.custom = def.prompt;
      // `inherit` keeps the model the session has.
      if (!ctx.modelFlag && def.model !== undefined)
        ctx.settings.model = chooseModel(def.model, {
          sessionDefault: ctx.defaultModel,
          inherited: ctx.settings.model,
        });
      ctx.tools.narrow((t) => agentAllowsTool(def, t.name));
    },
  };
}
