// Command-line flags → one validated options object. Flags a host may pass that we have not built
// yet fail at start with exit code 2 and a clear line; none is ever silently ignored.
import { Command, CommanderError, Option } from 'commander';
import { z } from 'zod';
import { permissionModeSchema } from '../protocol/inbound.js';
import { EFFORT_LEVELS } from '../loop/pricing.js';
import { parseDebugFilter, writeStderr } from '../util/log.js';
import { addTeammateOptions, teammateFlagsShape, teammateIdentity } from '../teams/teammateFlags.js';

export const VERSION = '0.1.0';

export class UsageError extends Error {}

const positiveInt = (flag: string) =>
  z.coerce
    .number({ error: `${flag} must be a number` })
    .int(`${flag} must be a whole number`)
    .positive(`${flag} must be at least 1`);

export const optionsSchema = z.object({
  print: z.boolean().default(false),
  prompt: z.string().optional(),
  sessionId: z.uuid({ error: '--session-id must be a UUID' }).optional(),
  inputFormat: z.enum(['text', 'stream-json'], { error: '--input-format must be text or stream-json' }).default('text'),
  outputFormat: z
    .enum(['text', 'json', 'stream-json'], { error: '--output-format must be text, json or stream-json' })
    .default('text'),
  verbose: z.boolean().default(false),
  includePartialMessages: z.boolean().default(false),
  model: z.string().min(1).optional(),
  fallbackModel: z.string().min(1).optional(),
  maxTurns: positiveInt('--max-turns').optional(),
  maxBudgetUsd: z.coerce
    .number({ error: '--max-budget-usd must be a number' })
    .positive('--max-budget-usd must be above 0')
    .optional(),
  taskBudget: positiveInt('--task-budget').optional(),
  maxThinkingTokens: z.coerce
    .number({ error: '--max-thinking-tokens must be a number' })
    .int()
    .nonnegative()
    .optional(),
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  tools: z.string().optional(),
  allowedTools: z.array(z.string()).default([]),
  disallowedTools: z.array(z.string()).default([]),
  permissionMode: permissionModeSchema.optional(),
  permissionPromptTool: z.string().optional(),
  permissionPrompts: z.enum(['host', 'none'], { error: '--permission-prompts must be host or none' }).optional(),
  dangerouslySkipPermissions: z.boolean().default(false),
  allowDangerouslySkipPermissions: z.boolean().default(false),
  addDir: z.array(z.string()).default([]),
  betas: z.array(z.string()).default([]),
  settingSources: z.string().optional(),
  settings: z.string().optional(),
  sessionPersistence: z.boolean().default(true),
  sessionMirror: z.boolean().default(false),
  resume: z.uuid({ error: '--resume must be a session id (a UUID)' }).optional(),
  /** --resume without an id: the terminal UI offers this project's sessions to pick from. */
  resumePicker: z.boolean().default(false),
  continue: z.boolean().default(false),
  forkSession: z.boolean().default(false),
  resumeSessionAt: z.string().min(1, '--resume-session-at needs a message uuid').optional(),
  resumeDropsTurn: z.string().min(1, '--resume-drops-turn needs a prompt uuid').optional(),
  name: z.string().optional(),
  agent: z.string().min(1, '--agent needs an agent name').optional(),
  agents: z.string().optional(),
  jsonSchema: z.string().optional(),
  mcpConfig: z.array(z.string()).default([]),
  pluginDir: z.array(z.string().min(1, '--plugin-dir needs a folder')).default([]),
  pluginDirNoMcp: z.array(z.string().min(1, '--plugin-dir-no-mcp needs a folder')).default([]),
  strictMcpConfig: z.boolean().default(false),
  managedSettings: z.string().optional(),
  includeHookEvents: z.boolean().default(false),
  projectConfigRoot: z.string().min(1, '--project-config-root must name a directory').optional(),
  teammateTimeoutMs: z
    .string()
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === undefined)
        ctx.addIssue({
          code: 'custom',
          message: `--teammate-timeout: "${v}" is not a duration (e.g. 600000, 90s, 10m)`,
        });
      return ms ?? 0;
    })
    .optional(),
  thinking: z
    .enum(['adaptive', 'enabled', 'disabled'], { error: '--thinking must be adaptive, enabled or disabled' })
    .optional(),
  effort: z.enum(EFFORT_LEVELS, { error: `--effort must be one of ${EFFORT_LEVELS.join(', ')}` }).optional(),
  record: z.string().min(1, '--record needs a file').optional(),
  replay: z.string().min(1, '--replay needs a file').optional(),
  debug: z.union([z.boolean(), z.string()]).optional(),
  debugFile: z.string().min(1, '--debug-file needs a path').optional(),
  debugToStderr: z.boolean().default(false),
  replaySpeed: z
    .enum(['0', '1'], { error: '--replay-speed must be 0 (instant) or 1 (the recorded timing)' })
    .transform(Number)
    .optional(),
  ...teammateFlagsShape,
});
export type CliOptions = z.infer<typeof optionsSchema>;

/** Flags the official SDK (or a person) may pass that are not built yet. */
const NOT_YET = [
  'sdk-url',
  'channels',
  'managed-settings-in-initialize',
  'initialize-fields',
  'thinking-display',
] as const;

/** "600000" / "500ms" (milliseconds), "90s", "10m" → milliseconds; undefined when not a duration. */
export function parseDuration(v: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1);
  return n > 0 ? Math.round(n) : undefined;
}

/** Split comma- or space-separated lists, repeated or not: `--tools a,b --tools c`. */
function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...splitList(value)];
}

/** Commas separate entries except inside parentheses: `Bash(git log:*),Read`. */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === ',' || ch === ' ') && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function buildProgram(): Command {
  const program = new Command()
    .name('agent')
    .description('A standalone agent runtime: runs the Claude agent loop headless, in JSON lines or text.')
    .argument('[prompt]', 'the prompt (with -p); read from stdin when omitted in text input mode')
    .option('-p, --print', 'headless: answer the prompt and exit')
    .option('--session-id <uuid>', 'use this session id')
    .option('--input-format <format>', 'text | stream-json')
    .option('--output-format <format>', 'text | json | stream-json')
    .option('--verbose', 'accepted for compatibility (stream-json output is always complete)')
    .option('--include-partial-messages', 'emit stream_event lines with the raw streaming events')
    .option('--model <model>', 'model id or alias (opus, fable, sonnet, haiku; default claude-opus-5-5)')
    .option('--fallback-model <model>', 'model to switch to once when the main model keeps failing')
    .option('--max-turns <n>', 'stop with error_max_turns after this many model turns')
    .option('--max-budget-usd <usd>', 'stop with error_max_budget_usd once the session has spent this much')
    .option(
      '--task-budget <tokens>',
      'an advisory token budget for the whole agentic loop: the API counts it down for the model (output_config.task_budget, beta task-budgets-2026-03-13)',
    )
    .option(
      '--max-thinking-tokens <n>',
      'thinking budget per turn (0 = off; on adaptive-thinking models any other value means on)',
    )
    .option(
      '--effort <level>',
      `how much effort the model puts in: ${EFFORT_LEVELS.join(' | ')} (default medium, where the model takes effort)`,
    )
    .option('--system-prompt <text>', 'replace the default system prompt')
    .option('--append-system-prompt <text>', 'append to the system prompt')
    .option('--tools <list>', 'the offered tools, comma-separated ("" for none)')
    .option('--allowedTools, --allowed-tools <rules>', 'permission rules that allow (e.g. "Bash(npm test:*)")', list)
    .option(
      '--disallowedTools, --disallowed-tools <rules>',
      'permission rules that deny; plain tool names also remove the tool',
      list,
    )
    .option('--permission-mode <mode>', 'default | acceptEdits | plan | dontAsk | bypassPermissions')
    .option('--permission-prompt-tool <name>', '"stdio": ask the host with can_use_tool control requests')
    .option(
      '--permission-prompts <who>',
      'host (default): the host or the terminal answers permission prompts; none: nobody does, what would ask is denied at once',
    )
    .option('--dangerously-skip-permissions', 'bypass all permission checks')
    .option('--allow-dangerously-skip-permissions', 'allow bypassPermissions to be chosen')
    .option('--add-dir <dirs...>', 'more directories the tools may work in')
    .option('--betas <list>', 'beta headers for the API', list)
    .option(
      '--agent <name>',
      "run the main thread as this agent (built-in, .claude/agents, --agents or the host's): its prompt, tools and model",
    )
    .option('--agents <json>', 'custom subagents: a JSON object of {name: {description, prompt, tools?, model?}}')
    .option(
      '--json-schema <schema>',
      'structured output: the final answer must match this JSON schema (result.structured_output)',
    )
    .option(
      '--mcp-config <json-or-file>',
      'MCP servers: {"mcpServers": {name: config}} as JSON or a file (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--plugin-dir <dir>',
      'load the plugin in this folder (.claude-plugin/plugin.json; its commands, agents, skills, hooks, MCP servers) (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--plugin-dir-no-mcp <dir>',
      "as --plugin-dir, without the plugin's MCP servers (the host runs them) (repeatable)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--strict-mcp-config',
      'use only the servers of --mcp-config and the host: no settings-file, .mcp.json or plugin servers',
    )
    .option('--setting-sources <list>', 'which settings files load: user,project,local')
    .option('--settings <file-or-json>', 'a settings file or JSON on top of the others')
    .option(
      '--include-hook-events',
      'emit system hook_started / hook_progress / hook_response lines for every command hook run',
    )
    .option('--managed-settings <file-or-json>', 'policy settings: highest precedence, nothing overrides them')
    .option(
      '--project-config-root <dir>',
      'read the project settings, agents and .mcp.json from this directory instead of the working directory',
    )
    .option('--no-session-persistence', 'do not write the session transcript')
    .option(
      '--session-mirror',
      "also send every transcript entry to the host as a transcript_mirror line (the SDK's sessionStore)",
    )
    .option(
      '-r, --resume [sessionId]',
      "resume this session: its history is sent again, its id kept (no id, in a terminal: pick one of this project's)",
    )
    .option('-c, --continue', "resume this directory's most recent session")
    .option('--fork-session', 'with --resume/--continue: a new session id and transcript, the history copied')
    .option(
      '--teammate-timeout <duration>',
      'once the input has ended, how long working teammates may go on before they are stopped (ms, or 90s, 10m; default 10m, or AGENT_TEAMMATE_TIMEOUT_MS)',
    )
    .option('--resume-session-at <uuid>', 'with --resume: resume the branch that ends at this message')
    .option(
      '--resume-drops-turn <uuid>',
      "with --resume-session-at: refuse unless everything past that point is this prompt's turn",
    )
    .option('-n, --name <title>', "the session's title (what listSessions shows)")
    .option('--await-initialize', 'accepted: the initialize request is always honoured before the first prompt')
    .option('--thinking <mode>', 'adaptive | enabled | disabled (default: adaptive where the model takes it)')
    .option('--record <file>', "write every model request's digest and its streamed reply to this file (JSON lines)")
    .option('--replay <file>', 'answer model requests from a --record file instead of the API (no key, no network)')
    .option('--replay-speed <0|1>', 'with --replay: 0 answers at once (default), 1 keeps the recorded timing')
    .option(
      '--debug [filter]',
      'debug lines (api, hooks, permissions, mcp) to stderr; a filter such as "api,hooks" or "!mcp" picks categories',
    )
    .option('--debug-file <path>', 'append the debug lines to this file instead of stderr (implies --debug)')
    .option('--debug-to-stderr', 'debug lines to stderr (also with --debug-file)')
    .version(`${VERSION} (agent-runtime)`, '-v, --version')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeErr: writeStderr, writeOut: (s) => process.stdout.write(s) });
  addTeammateOptions(program);
  for (const flag of NOT_YET) program.addOption(new Option(`--${flag} [value]`).hideHelp());
  return program;
}

/** Every long flag the parser knows, and whether it is built (the rest exit 2 at start). */
export function flagCatalog(): Array<{ flag: string; takesValue: boolean; built: boolean }> {
  const notYet = new Set<string>(NOT_YET);
  return buildProgram().options.flatMap((opt) => {
    const names = [opt.long, ...opt.flags.split(/[ ,|]+/).filter((f) => f.startsWith('--'))].filter(
      (f): f is string => !!f,
    );
    const takesValue = opt.required || opt.optional;
    return [...new Set(names)].map((flag) => ({ flag, takesValue, built: !notYet.has(flag.slice(2)) }));
  });
}

export type ParseOutcome = { kind: 'run'; options: CliOptions } | { kind: 'exit'; code: number };

/**
 * The program the first parse uses, built as the module loads: in the start-up snapshot it is
 * already built (commander's 60-odd options cost a few ms at every start). A parse changes the
 * program's state, so each later parse builds a fresh one.
 */
let prebuilt: Command | undefined = buildProgram();

export function parseOptions(argv: string[]): ParseOutcome {
  const program = prebuilt ?? buildProgram();
  prebuilt = undefined;
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; every usage mistake exits 2.
      return { kind: 'exit', code: err.exitCode === 0 ? 0 : 2 };
    }
    throw err;
  }
  const raw = program.opts();
  for (const flag of NOT_YET) {
    const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (raw[key] !== undefined) throw new UsageError(`--${flag} is not supported yet`);
  }
  const parsed = optionsSchema.safeParse({
    ...raw,
    resume: raw.resume === true ? undefined : raw.resume,
    resumePicker: raw.resume === true,
    prompt: program.args[0],
    print: raw.print ?? false,
    addDir: raw.addDir ?? [],
    allowedTools: raw.allowedTools ?? [],
    disallowedTools: raw.disallowedTools ?? [],
    betas: raw.betas ?? [],
    verbose: raw.verbose ?? false,
    includePartialMessages: raw.includePartialMessages ?? false,
    dangerouslySkipPermissions: raw.dangerouslySkipPermissions ?? false,
    allowDangerouslySkipPermissions: raw.allowDangerouslySkipPermissions ?? false,
    continue: raw.continue ?? false,
    forkSession: raw.forkSession ?? false,
    mcpConfig: raw.mcpConfig ?? [],
    pluginDir: raw.pluginDir ?? [],
    pluginDirNoMcp: raw.pluginDirNoMcp ?? [],
    strictMcpConfig: raw.strictMcpConfig ?? false,
    includeHookEvents: raw.includeHookEvents ?? false,
    teammateTimeoutMs: raw.teammateTimeout,
    debugToStderr: raw.debugToStderr ?? false,
    sessionMirror: raw.sessionMirror ?? false,
  });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('; '));
  const o = parsed.data;
  if (o.inputFormat === 'stream-json' && o.outputFormat !== 'stream-json')
    throw new UsageError('--input-format stream-json requires --output-format stream-json');
  if (o.sessionMirror && o.outputFormat !== 'stream-json')
    throw new UsageError(
      '--session-mirror needs --output-format stream-json (the mirror lines go to the host on stdout)',
    );
  if (o.sessionMirror && !o.sessionPersistence)
    throw new UsageError(
      '--session-mirror cannot be used with --no-session-persistence: entries are mirrored after their local write',
    );
  if ((o.resume !== undefined || o.resumePicker) && o.continue)
    throw new UsageError('--resume and --continue cannot be used together');
  if (o.resumePicker && (o.print || o.inputFormat === 'stream-json' || o.outputFormat === 'stream-json'))
    throw new UsageError(
      '--resume needs a session id with -p or stream-json (without one it opens a picker, which only the terminal UI has)',
    );
  if (o.resumePicker && (o.forkSession || o.resumeSessionAt !== undefined))
    throw new UsageError('--fork-session and --resume-session-at need --resume with a session id');
  if (o.forkSession && o.resume === undefined && !o.continue)
    throw new UsageError('--fork-session needs --resume or --continue');
  if (o.resumeSessionAt !== undefined && o.resume === undefined && !o.continue)
    throw new UsageError('--resume-session-at needs --resume or --continue');
  if (o.resumeDropsTurn !== undefined && o.resumeSessionAt === undefined)
    throw new UsageError('--resume-drops-turn needs --resume-session-at');
  if (o.sessionId !== undefined && (o.resume !== undefined || o.continue) && !o.forkSession)
    throw new UsageError('--session-id can be used with --resume or --continue only when --fork-session is given');
  if (o.record !== undefined && o.replay !== undefined)
    throw new UsageError('--record and --replay cannot be used together');
  if (o.replaySpeed !== undefined && o.replay === undefined) throw new UsageError('--replay-speed needs --replay');
  try {
    teammateIdentity(o);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  try {
    parseDebugFilter(typeof o.debug === 'string' ? o.debug : undefined);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return { kind: 'run', options: o };
}
