// What a session tells telemetry, in its own terms (a prompt, an API call, a tool's decision and
// result), turned here into the reference's metrics and events with their names and attributes, so
// dashboards built for it work unchanged. The OpenTelemetry SDK sits behind `TelemetrySink`
// (otel.ts), so this mapping is tested without it; with telemetry off the session holds
// NO_TELEMETRY and none of this runs.
import { randomUUID } from '../util/ids.js';
import { extname } from 'node:path';
import type { ToolKind } from '../../tools/tool.js';
import type { TelemetryConfig } from './config.js';

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

/** The metrics, by the reference's names. */
export const METRICS = {
  'claude_code.session.count': { description: 'Sessions started', unit: '' },
  'claude_code.lines_of_code.count': { description: 'Lines of code added or removed by file edits', unit: '' },
  'claude_code.pull_request.count': { description: 'Pull requests created', unit: '' },
  'claude_code.commit.count': { description: 'Git commits created', unit: '' },
  'claude_code.cost.usage': { description: 'Estimated cost of the API calls', unit: 'USD' },
  'claude_code.token.usage': { description: 'Tokens used, by type', unit: 'tokens' },
  'claude_code.code_edit_tool.decision': {
    description: 'Permission decisions on file-editing tools (Edit, Write, NotebookEdit)',
    unit: '',
  },
  'claude_code.active_time.total': { description: 'Time spent working, in seconds', unit: 's' },
} as const;
export type MetricName = keyof typeof METRICS;

/** Where the recorder's numbers and events go: the OpenTelemetry SDK (otel.ts) or a test. */
export interface TelemetrySink {
  add(metric: MetricName, value: number, attributes: Attributes): void;
  /** One event: a log record whose body is `claude_code.<name>`, with `event.name` = name. */
  event(name: string, attributes: Attributes): void;
  /** Exports what is pending and stops; resolves within `timeoutMs` whatever the collector does. */
  shutdown(timeoutMs: number): Promise<void>;
}

export type StartType = 'fresh' | 'resume' | 'continue';
/** Who decided (the reference's `source` values). */
export type DecisionSource = 'config' | 'hook' | 'user_permanent' | 'user_temporary' | 'user_abort' | 'user_reject';

export interface ApiRequestFacts {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** The cache writes by lifetime (usage.cache_creation), 0 when the API does not say. */
  cacheCreation5mTokens: number;
  cacheCreation1hTokens: number;
  costUsd: number;
  /** The API's request id (its request-id header), when it sent one. */
  requestId?: string;
  /** The reply's text (its text blocks joined): an assistant_response event when not empty. */
  text: string;
  /** The tool calls the reply asked for: their events carry this request's id. */
  toolUseIds: string[];
  durationMs: number;
  /** Time to the first streamed event. */
  ttftMs?: number;
  /** null for the main agent, else a subagent's Task tool_use id. */
  caller: string | null;
  effort?: string;
}

export interface ApiErrorFacts {
  model: string;
  error: string;
  statusCode: number | null;
  durationMs: number;
  attempt: number;
  caller: string | null;
}

export interface ToolDecisionFacts {
  toolName: string;
  /** What the tool declares it does: the decisions of `edit` tools are counted as code_edit_tool.decision. */
  toolKind: ToolKind;
  /** The paths the call declares it touches (`access().paths`): an `edit` tool's first file gives the decision's language. */
  paths: readonly string[];
  toolUseId: string;
  decision: 'accept' | 'reject';
  source: DecisionSource;
  input: unknown;
}

export interface ToolResultFacts {
  toolName: string;
  /** `edit` tools' successful results count their lines (lines_of_code.count). */
  toolKind: ToolKind;
  /** The paths the call declares it touches (`access().paths`). */
  paths: readonly string[];
  toolUseId: string;
  success: boolean;
  durationMs: number;
  input: unknown;
  /** The tool's structured output (Edit/Write patches), when it has one. */
  data?: unknown;
  error?: string;
  resultSizeBytes: number;
}

export interface Telemetry {
  readonly enabled: boolean;
  sessionStarted(startType: StartType): void;
  userPrompt(text: string): void;
  apiRequest(facts: ApiRequestFacts): void;
  apiError(facts: ApiErrorFacts): void;
  /** A reply being streamed asked for this tool call (its decision may come before the reply ends). */
  toolRequested(toolUseId: string, requestId: string): void;
  toolDecision(facts: ToolDecisionFacts): void;
  toolResult(facts: ToolResultFacts): void;
  /** Seconds the agent worked (`cli`) or a person typed (`user`). */
  activeTime(seconds: number, type: 'cli' | 'user'): void;
  /** Exports what is pending, within the configured bound; later calls do nothing. */
  shutdown(): Promise<void>;
}

/** Telemetry off: every call is a no-op. */
export const NO_TELEMETRY: Telemetry = {
  enabled: false,
  sessionStarted() {},
  userPrompt() {},
  apiRequest() {},
  apiError() {},
  toolRequested() {},
  toolDecision() {},
  toolResult() {},
  activeTime() {},
  shutdown: async () => {},
};

export interface RecorderContext {
  sessionId: string;
  version: string;
  userId: string;
  apiProvider: string;
  /** The terminal the session runs in (terminal.type). */
  terminal: string;
  /** Who is at the other end of the main thread's calls: `sdk` for a host, `cli` for a person. */
  entrypoint: 'sdk' | 'cli';
  /** The provider's endpoint is not its own (a gateway or proxy): anthropic.custom_base_url. */
  customBaseUrl: boolean;
}

/** The recorder: standard attributes on everything, the events' sequence and prompt id. */
export function createRecorder(cfg: TelemetryConfig, ctx: RecorderContext, sink: TelemetrySink): Telemetry {
  const standard: Attributes = { 'user.id': ctx.userId };
  if (cfg.include.sessionId) standard['session.id'] = ctx.sessionId;
  if (cfg.include.version) standard['app.version'] = ctx.version;
  standard['anthropic.provider'] = ctx.apiProvider;
  standard['anthropic.custom_base_url'] = ctx.customBaseUrl;
  standard['terminal.type'] = ctx.terminal;
  // Which request asked for each tool call, for its decision and result events (bounded).
  const requestOfTool = new Map<string, string>();
  const remember = (toolUseId: string, requestId: string) => {
    if (requestOfTool.size >= 1000) requestOfTool.delete(requestOfTool.keys().next().value!);
    requestOfTool.set(toolUseId, requestId);
  };
  const requestIdOf = (toolUseId: string): Attributes => {
    const id = requestOfTool.get(toolUseId);
    return id ? { request_id: id } : {};
  };
  let sequence = 0;
  let promptId: string | undefined;
  let lastModel: string | undefined;
  let done = false;

  const add = (metric: MetricName, value: number, attrs: Attributes = {}) => {
    if (!done) sink.add(metric, value, { ...standard, ...attrs });
  };
  const event = (name: string, attrs: Attributes) => {
    if (done) return;
    sink.event(name, {
      ...standard,
      'event.name': name,
      'event.timestamp': new Date().toISOString(),
      'event.sequence': sequence++,
      ...(promptId ? { 'prompt.id': promptId } : {}),
      ...attrs,
    });
  };
  const querySource = (caller: string | null) => (caller === null ? 'main' : 'subagent');
  const eventSource = (caller: string | null) => (caller === null ? ctx.entrypoint : 'subagent');

  /** A Bash call's command (its program, and the whole line), with OTEL_LOG_TOOL_DETAILS only. */
  const toolParameters = (toolName: string, input: unknown): Attributes => {
    const command = (input as { command?: unknown } | null)?.command;
    if (!cfg.logToolDetails || toolName !== 'Bash' || typeof command !== 'string') return {};
    const program = command.trim().split(/\s+/)[0] ?? '';
    return { tool_parameters: JSON.stringify({ bash_command: program, full_command: command }) };
  };

  return {
    enabled: true,
    sessionStarted(startType) {
      add('claude_code.session.count', 1, { start_type: startType });
    },
    userPrompt(text) {
      promptId = randomUUID();
      const shown = cfg.logUserPrompts ? text : '<REDACTED>';
      // prompt_text repeats prompt, as the reference sends both.
      event('user_prompt', { prompt_length: String(text.length), prompt: shown, prompt_text: shown });
    },
    apiRequest(f) {
      if (f.caller === null) lastModel = f.model;
      const common: Attributes = {
        model: f.model,
        query_source: querySource(f.caller),
        ...(f.effort ? { effort: f.effort } : {}),
      };
      add('claude_code.cost.usage', f.costUsd, common);
      for (const [type, n] of [
        ['input', f.inputTokens],
        ['output', f.outputTokens],
        ['cacheRead', f.cacheReadTokens],
        ['cacheCreation', f.cacheCreationTokens],
      ] as const)
        add('claude_code.token.usage', n, { ...common, type });
      event('api_request', {
        model: f.model,
        input_tokens: f.inputTokens,
        output_tokens: f.outputTokens,
        cache_read_tokens: f.cacheReadTokens,
        cache_creation_tokens: f.cacheCreationTokens,
        cache_creation_5m_tokens: f.cacheCreation5mTokens,
        cache_creation_1h_tokens: f.cacheCreation1hTokens,
        cost_usd: f.costUsd,
        cost_usd_micros: Math.round(f.costUsd * 1_000_000),
        duration_ms: f.durationMs,
        ...(f.ttftMs !== undefined ? { ttft_ms: f.ttftMs } : {}),
        ...(f.requestId ? { request_id: f.requestId } : {}),
        // Fast mode is not built here: every request is a normal one.
        speed: 'normal',
        query_source: eventSource(f.caller),
        ...(f.effort ? { effort: f.effort } : {}),
      });
      if (f.requestId) for (const id of f.toolUseIds) remember(id, f.requestId);
      if (f.text)
        event('assistant_response', {
          response_length: f.text.length,
          response: cfg.logAssistantResponses || cfg.logUserPrompts ? f.text : '<REDACTED>',
          ...(f.requestId ? { request_id: f.requestId } : {}),
          model: f.model,
          query_source: eventSource(f.caller),
        });
    },
    apiError(f) {
      event('api_error', {
        model: f.model,
        error: f.error,
        ...(f.statusCode !== null ? { status_code: f.statusCode } : {}),
        duration_ms: f.durationMs,
        attempt: f.attempt,
        query_source: eventSource(f.caller),
      });
    },
    toolRequested(toolUseId, requestId) {
      remember(toolUseId, requestId);
    },
    toolDecision(f) {
      event('tool_decision', {
        decision: f.decision,
        source: f.source,
        tool_name: f.toolName,
        tool_use_id: f.toolUseId,
        tool_source: f.toolName.startsWith('mcp__') ? 'mcp' : 'builtin',
        ...toolParameters(f.toolName, f.input),
        ...requestIdOf(f.toolUseId),
      });
      if (f.toolKind === 'edit')
        add('claude_code.code_edit_tool.decision', 1, {
          decision: f.decision,
          source: f.source,
          tool_name: f.toolName,
          language: languageOf(f.paths[0] ?? ''),
        });
    },
    toolResult(f) {
      const inputText = safeJson(f.input);
      event('tool_result', {
        tool_name: f.toolName,
        tool_use_id: f.toolUseId,
        success: String(f.success),
        duration_ms: String(f.durationMs),
        ...(f.error !== undefined ? { error: f.error } : {}),
        ...toolParameters(f.toolName, f.input),
        ...(cfg.logToolDetails ? { tool_input: inputText } : {}),
        tool_input_size_bytes: String(Buffer.byteLength(inputText)),
        tool_result_size_bytes: String(f.resultSizeBytes),
        ...requestIdOf(f.toolUseId),
      });
      if (!f.success) return;
      const lines = f.toolKind === 'edit' ? linesChanged(f.input, f.data) : undefined;
      if (lines) {
        const model: Attributes = lastModel ? { model: lastModel } : {};
        add('claude_code.lines_of_code.count', lines.added, { type: 'added', ...model });
        add('claude_code.lines_of_code.count', lines.removed, { type: 'removed', ...model });
      }
      if (f.toolName === 'Bash') {
        const command = (f.input as { command?: unknown } | null)?.command;
        if (typeof command === 'string') {
          if (GIT_COMMIT.test(command)) add('claude_code.commit.count', 1);
          if (PR_CREATE.test(command)) add('claude_code.pull_request.count', 1);
        }
      }
    },
    activeTime(seconds, type) {
      if (seconds > 0) add('claude_code.active_time.total', seconds, { type });
    },
    async shutdown() {
      if (done) return;
      done = true;
      await sink.shutdown(cfg.shutdownTimeoutMs);
    },
  };
}

/** A commit made by the command (not `git commit --help`, not a dry run). */
const GIT_COMMIT = /(?:^|[;&|(]\s*|\s)git(?:\s+-[cC]\s+\S+)*\s+commit\b(?![^;&|]*--(?:dry-run|help)\b)/;
/** A pull request opened with the GitHub CLI. */
const PR_CREATE = /(?:^|[;&|(]\s*|\s)gh\s+pr\s+create\b(?![^;&|]*--help\b)/;

/** Lines added and removed by an Edit, Write or NotebookEdit, from its patch (or a new file's text). */
export function linesChanged(input: unknown, data: unknown): { added: number; removed: number } | undefined {
  const d = data as { type?: unknown; structuredPatch?: Array<{ lines?: unknown }> } | null;
  if (d && Array.isArray(d.structuredPatch) && d.structuredPatch.length > 0) {
    let added = 0;
    let removed = 0;
    for (const hunk of d.structuredPatch)
      for (const line of Array.isArray(hunk.lines) ? hunk.lines : []) {
        if (typeof line !== 'string') continue;
        if (line.startsWith('+')) added++;
        else if (line.startsWith('-')) removed++;
      }
    return { added, removed };
  }
  // An update without a patch (too large to diff, or no change) says nothing countable.
  if (d && d.type === 'update') return undefined;
  // A new file (Write's create) has no patch: every line of its content is added.
  const content = (input as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return { added: countLines(content), removed: 0 };
  const source = (input as { new_source?: unknown } | null)?.new_source;
  if (typeof source === 'string') return { added: countLines(source), removed: 0 };
  return undefined;
}

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

const LANGUAGES: Record<string, string> = {
  '.ts': 'TypeScript',
  '.tsx': 'TypeScript',
  '.mts': 'TypeScript',
  '.cts': 'TypeScript',
  '.js': 'JavaScript',
  '.jsx': 'JavaScript',
  '.mjs': 'JavaScript',
  '.cjs': 'JavaScript',
  '.py': 'Python',
  '.go': 'Go',
  '.rs': 'Rust',
  '.java': 'Java',
  '.kt': 'Kotlin',
  '.swift': 'Swift',
  '.c': 'C',
  '.h': 'C',
  '.cc': 'C++',
  '.cpp': 'C++',
  '.hpp': 'C++',
  '.cs': 'C#',
  '.rb': 'Ruby',
  '.php': 'PHP',
  '.sh': 'Shell',
  '.bash': 'Shell',
  '.zsh': 'Shell',
  '.md': 'Markdown',
  '.json': 'JSON',
  '.yaml': 'YAML',
  '.yml': 'YAML',
  '.toml': 'TOML',
  '.html': 'HTML',
  '.css': 'CSS',
  '.scss': 'SCSS',
  '.sql': 'SQL',
  '.ipynb': 'Jupyter Notebook',
  '.txt': 'Plain text',
};

/** The language attribute of code_edit_tool.decision, from the file's extension. */
export function languageOf(path: string): string {
  return LANGUAGES[extname(path).toLowerCase()] ?? 'unknown';
}
