// What a session produces, as one closed discriminated union: the loop's events (the main agent's
// and, scoped by parentToolUseId, its subagents' and teammates'), each run's init, each turn's
// result with its outcome, background-task and team events, and the session's own notices. Every
// variant is named and typed in the domain's words; none carries a protocol line. One function
// (wire.ts toWire) turns an event into its protocol line, typed by the outbound schemas, which is
// also what the transcript keeps; the terminal draws the events themselves.
import type { HookRunEvent } from '../hooks/hookRunner.js';
import type { TimingFields } from './turnTiming.js';
import type { LoopEvent, LoopOutcome } from '../loop/events.js';
import type { PermissionDenial } from '../loop/toolPipeline.js';
import type { ModelUsage, UsageTotals } from '../loop/usage.js';
import type { PermissionMode } from '../permissions/modes.js';
import type { TeamEvent } from '../teams/teamHost.js';
import type { TurnBackups } from './fileCheckpoints.js';

/** What a run starts with (system/init). */
export interface SessionInit {
  cwd: string;
  tools: string[];
  mcpServers: Array<{ name: string; status: string }>;
  model: string;
  permissionMode: PermissionMode;
  slashCommands: string[];
  skills: string[];
  /** The loaded plugins (--plugin-dir, the SDK's plugins). */
  plugins: Array<{ name: string; path: string }>;
  apiKeySource: string;
  /** The output style in use. */
  outputStyle: string;
  agents: string[];
  version: string;
  /** Protocol capabilities a host may feature-detect. */
  capabilities: string[];
  sandbox?: { enabled: boolean; active: boolean; reason?: string };
}

/** One turn's end: how it ended (the loop's outcome) and what it cost. */
export interface TurnResult {
  outcome: LoopOutcome;
  durationMs: number;
  /** The turn's timing fields (first request, first streamed event, first token, first content line). */
  timing?: TimingFields;
  /** The session's running total (every call so far), as the reference reports `total_cost_usd`. */
  costUsd: number;
  /** What was recorded since the result before this one. */
  usage: UsageTotals;
  /** The session's running per-model totals. */
  modelUsage: ModelUsage;
  permissionDenials: PermissionDenial[];
}

/** The session's own notices (system lines that are not the loop's). */
export type Notice =
  | { subtype: 'prompt_blocked'; reason: string }
  | { subtype: 'hook_system_message'; message: string }
  /** --include-hook-events: a command hook's start, output, end. */
  | { subtype: 'hook'; event: HookRunEvent }
  /** A stdin line that could not be used (it was skipped). */
  | { subtype: 'error'; error: string; line?: number }
  /** A url-mode MCP elicitation the server says is complete. */
  | { subtype: 'elicitation_complete'; serverName: string; elicitationId: string }
  /** The session's state for a host: a request going out, or (status null) a new permission mode. */
  | { subtype: 'status'; status: 'requesting' | 'compacting' | null; permissionMode?: PermissionMode }
  /** A turn's file checkpoints, told before its result. */
  | { subtype: 'files_persisted'; backups: TurnBackups; processedAt: string };

export type SessionEvent =
  | LoopEvent
  | { type: 'init'; init: SessionInit }
  | { type: 'result'; result: TurnResult }
  | { type: 'team'; event: TeamEvent }
  | { type: 'notice'; notice: Notice }
  /** promptSuggestions: the predicted next prompt, after a turn's result. */
  | { type: 'prompt_suggestion'; suggestion: string };

/** Events of the main conversation (not a subagent's or teammate's). */
export function isMainThread(ev: SessionEvent): boolean {
  return !('parentToolUseId' in ev) || ev.parentToolUseId === null;
}

export function isErrorResult(r: TurnResult): boolean {
  return r.outcome.subtype !== 'success';
}
