// Slash commands: a prompt that starts with `/name` runs a command instead of going to the model
// as typed. Custom commands (markdown files) become the turn's prompt; built-ins act on the
// session locally and answer with text, without a model call (except /compact, which summarises).
import type { ExpandIO } from './expand.js';
import { expandTemplate } from './expand.js';
import type { MarkdownCommand } from './markdownCommands.js';
import { LOOP_USAGE, loopPrompt } from './loopCommand.js';

/** The SDK's SlashCommand shape (supportedCommands(), the initialize answer's `commands`). */
export interface SlashCommandInfo {
  name: string;
  description: string;
  argumentHint: string;
  builtin?: boolean;
}

export type SlashOutcome =
  /** The turn's prompt; its model and extra allow rules hold for this turn only. */
  | { kind: 'prompt'; prompt: string; model?: string; allowedTools: string[] }
  /** Answered here: the text is the turn's result. */
  | { kind: 'local'; text: string; isError?: boolean }
  /** /compact: summarise the conversation now (with these extra instructions). */
  | { kind: 'compact'; instructions: string };

/** What the built-ins act on: the running session. */
export interface SessionView {
  clear(): void;
  costText(): string;
  contextText(): string;
  /** The current model; with a name, switch to it first (throws with a reason when unusable). */
  model(name?: string): string;
  /** Whether the session offers a tool by this name (/loop needs the scheduling tools). */
  hasTool?(name: string): boolean;
}

/** A command another part of the session offers (a skill, an MCP server's prompt). */
export interface ExtraCommand extends SlashCommandInfo {
  run(args: string): Promise<SlashOutcome>;
}

interface Builtin extends SlashCommandInfo {
  run(args: string, session: SessionView, all: () => SlashCommandInfo[]): SlashOutcome;
}

const BUILTINS: Builtin[] = [
  {
    name: 'compact',
    description: 'Clear the conversation history but keep a summary in context',
    argumentHint: '<optional custom summarization instructions>',
    run: (args) => ({ kind: 'compact', instructions: args.trim() }),
  },
  {
    name: 'clear',
    description: 'Clear the conversation history and free up context',
    argumentHint: '',
    run: (_, s) => {
      s.clear();
      return { kind: 'local', text: 'Conversation cleared.' };
    },
  },
  {
    name: 'cost',
    description: 'Show the total cost and duration of the current session',
    argumentHint: '',
    run: (_, s) => ({ kind: 'local', text: s.costText() }),
  },
  {
    name: 'context',
    description: 'Show the current context usage by category',
    argumentHint: '',
    run: (_, s) => ({ kind: 'local', text: s.contextText() }),
  },
  {
    name: 'model',
    description: 'Show or set the AI model for this session',
    argumentHint: '[model]',
    run: (args, s) => {
      const name = args.trim();
      try {
        const model = s.model(name || undefined);
        return { kind: 'local', text: name ? `Model set to ${model}.` : `Current model: ${model}` };
      } catch (err) {
        return { kind: 'local', text: `/model: ${(err as Error).message}`, isError: true };
      }
    },
  },
  {
    name: 'loop',
    description: 'Run a prompt repeatedly: on an interval (/loop 10m …), or paced by the model (/loop …)',
    argumentHint: '[interval] <prompt>',
    run: (args, s) => {
      if (s.hasTool && !(s.hasTool('CronCreate') && s.hasTool('ScheduleWakeup')))
        return {
          kind: 'local',
          text: '/loop: scheduling is turned off in this session (CLAUDE_CODE_DISABLE_CRON, or --tools/--disallowedTools left out CronCreate or ScheduleWakeup)',
          isError: true,
        };
      const input = args.trim();
      if (!input || /^\d+[smhd]$/.test(input)) return { kind: 'local', text: LOOP_USAGE, isError: true };
      return { kind: 'prompt', prompt: loopPrompt(input), allowedTools: [] };
    },
  },
  {
    name: 'help',
    description: 'List the available slash commands',
    argumentHint: '',
    run: (_, __, all) => ({
      kind: 'local',
      text: [
        'Slash commands:',
        ...all().map((c) => `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''} — ${c.description}`),
      ].join('\n'),
    }),
  },
];

/** `/name args…` → name and args; anything else (a path such as `/tmp/x`, plain text) → undefined. */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const m = /^\/([\w.-]+(?::[\w.-]+)*)(?:[ \t\r\n]+([\s\S]*))?$/.exec(text.trimStart());
  return m ? { name: m[1], args: m[2] ?? '' } : undefined;
}

export class SlashCommands {
  constructor(
    private custom: MarkdownCommand[],
    private readonly io: (cmd: MarkdownCommand) => ExpandIO,
    private readonly session: SessionView,
  ) {}

  replaceCustom(custom: MarkdownCommand[]): void {
    this.custom = custom;
  }

  /** The loaded plugins' commands (named `plugin:command`), replaced as a whole on reload_plugins. */
  private plugin: MarkdownCommand[] = [];
  setPluginCommands(commands: MarkdownCommand[]): void {
    this.plugin = commands;
  }

  /** Skills and MCP prompts, asked each time (they change while the session runs). */
  private extraSources: Array<() => ExtraCommand[]> = [];
  addSource(source: () => ExtraCommand[]): void {
    this.extraSources.push(source);
  }

  /** The extra commands whose names no built-in or custom command has taken, first of a name wins. */
  private extras(): ExtraCommand[] {
    const taken = new Set([...BUILTINS.map((b) => b.name), ...this.customAll().map((c) => c.name)]);
    const out: ExtraCommand[] = [];
    for (const source of this.extraSources)
      for (const c of source()) {
        if (taken.has(c.name)) continue;
        taken.add(c.name);
        out.push(c);
      }
    return out;
  }

  private customAll(): MarkdownCommand[] {
    return [...this.plugin, ...this.custom.filter((c) => !this.plugin.some((p) => p.name === c.name))];
  }

  /** Built-ins first, then the custom commands (a custom command may not shadow a built-in). */
  list(): SlashCommandInfo[] {
    const builtins = BUILTINS.map(({ name, description, argumentHint }) => ({
      name,
      description,
      argumentHint,
      builtin: true,
    }));
    const custom = this.customAll()
      .filter((c) => !BUILTINS.some((b) => b.name === c.name))
      .map((c) => ({
        name: c.name,
        description: `${c.description} (${c.source === 'plugin' ? `plugin:${c.name.split(':')[0]}` : c.source})`,
        argumentHint: c.argumentHint,
      }));
    const extra = this.extras().map(({ name, description, argumentHint }) => ({ name, description, argumentHint }));
    return [...builtins, ...custom, ...extra];
  }

  names(): string[] {
    return this.list().map((c) => c.name);
  }

  /** undefined: not a slash command, the prompt goes to the model as typed. */
  async run(text: string): Promise<SlashOutcome | undefined> {
    const call = parseSlash(text);
    if (!call) return undefined;
    const builtin = BUILTINS.find((b) => b.name === call.name);
    if (builtin) return builtin.run(call.args, this.session, () => this.list());
    const cmd = this.customAll().find((c) => c.name === call.name);
    const extra = cmd ? undefined : this.extras().find((c) => c.name === call.name);
    if (extra) {
      try {
        return await extra.run(call.args);
      } catch (err) {
        return { kind: 'local', text: `/${extra.name}: ${(err as Error).message}`, isError: true };
      }
    }
    if (!cmd)
      return {
        kind: 'local',
        text: `Unknown slash command: /${call.name}. /help lists the available ones.`,
        isError: true,
      };
    try {
      const prompt = await expandTemplate(cmd.body, call.args, this.io(cmd));
      return { kind: 'prompt', prompt, ...(cmd.model ? { model: cmd.model } : {}), allowedTools: cmd.allowedTools };
    } catch (err) {
      return { kind: 'local', text: `/${cmd.name}: ${(err as Error).message}`, isError: true };
    }
  }
}
