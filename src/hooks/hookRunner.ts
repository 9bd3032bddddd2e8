// One registry for both kinds of hooks: command hooks from settings (and from plugins, kept apart
// so either can be replaced alone) and callback hooks of the host. The hooks of one event run in parallel; their results merge (merge.ts).
import { randomUUID } from '../util/ids.js';
import { debugLog } from '../util/log.js';
import { runCallbackHook, type CallHost } from './callbackHooks.js';
import { runCommandHook, type CommandHookSpec } from './commandHooks.js';
import {
  isHookEvent,
  type BaseHookInput,
  type CallbackHooksConfig,
  type HookEvent,
  type HookOutcome,
  type HookResult,
} from './events.js';
import { matcherMatches } from './matcher.js';
import { emptyOutcome, mergeResults } from './merge.js';

/** The `hooks` key of settings: {Event: [{matcher?, hooks: [{type:'command', command, timeout?}]}]}. */
export type CommandHooksConfig = Record<
  string,
  Array<{ matcher?: string; hooks: Array<{ type: string; command?: string; timeout?: number; async?: boolean }> }>
>;

export interface HookRunnerOptions {
  commandHooks?: CommandHooksConfig;
  callbackHooks?: CallbackHooksConfig;
  /** Sends a `hook_callback` control request; without it callback hooks are skipped. */
  callHost?: CallHost;
  onWarning?: (msg: string) => void;
  base: () => BaseHookInput;
  /** For tests: the timeout of hooks that set none (default 60 s). */
  defaultTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** --include-hook-events: each command hook's start, output while it runs, and end. */
  onHookEvent?: (event: HookRunEvent) => void;
  /** How often a running command hook's new output is reported as hook_progress (default 500 ms). */
  progressIntervalMs?: number;
}

/** Which command hook run an event is about. */
export interface HookRun {
  hookId: string;
  /** `<event>` or `<event>:<match value>`. */
  hookName: string;
  hookEvent: string;
}

/** A command hook's output: so far (progress), or all of it (its end). */
export interface HookOutput {
  stdout: string;
  stderr: string;
  /** stdout then stderr. */
  output: string;
}

/** --include-hook-events: a command hook's start, its output while it runs, its end. */
export type HookRunEvent =
  | { kind: 'started'; hook: HookRun }
  | { kind: 'progress'; hook: HookRun; output: HookOutput }
  | {
      kind: 'response';
      hook: HookRun;
      output: HookOutput;
      exitCode?: number;
      outcome: 'success' | 'error' | 'cancelled';
    };

const PROGRESS_INTERVAL_MS = 500;
/** hook_progress carries the output so far; past this many characters per stream only the tail. */
const PROGRESS_MAX_CHARS = 10_000;

export interface HookRunOptions {
  /** Tool name for tool events; source/trigger/type for the others. */
  matchValue?: string;
  /** A second value a matcher may name: the tool's legacy name (`Task` matchers run for `Agent`). */
  matchAlso?: string;
  toolUseId?: string;
  signal: AbortSignal;
}

interface CommandEntry {
  matcher?: string;
  hook: CommandHookSpec;
}

/** One plugin's hooks: they run with CLAUDE_PLUGIN_ROOT set to its folder. */
export interface PluginHooks {
  name: string;
  root: string;
  hooks: CommandHooksConfig;
}
interface CallbackEntry {
  matcher?: string | null;
  id: string;
  timeout?: number;
}

export class HookRunner {
  private commands = new Map<HookEvent, CommandEntry[]>();
  private pluginCommands = new Map<HookEvent, CommandEntry[]>();
  private callbacks = new Map<HookEvent, CallbackEntry[]>();
  private callHost?: CallHost;
  private readonly warn: (msg: string) => void;

  constructor(private readonly opts: HookRunnerOptions) {
    this.warn = opts.onWarning ?? (() => {});
    this.callHost = opts.callHost;
    this.setCommandHooks(opts.commandHooks ?? {});
    this.setCallbackHooks(opts.callbackHooks ?? {});
  }

  setCommandHooks(config: CommandHooksConfig): void {
    this.commands = this.entries(config, 'settings');
  }

  /** The loaded plugins' hooks (replaced as a whole on reload_plugins). */
  setPluginHooks(plugins: PluginHooks[]): void {
    const merged = new Map<HookEvent, CommandEntry[]>();
    for (const p of plugins) {
      for (const [event, list] of this.entries(p.hooks, `plugin ${p.name}`, { CLAUDE_PLUGIN_ROOT: p.root }))
        merged.set(event, [...(merged.get(event) ?? []), ...list]);
    }
    this.pluginCommands = merged;
  }

  private entries(
    config: CommandHooksConfig,
    origin: string,
    env?: Record<string, string>,
  ): Map<HookEvent, CommandEntry[]> {
    const out = new Map<HookEvent, CommandEntry[]>();
    for (const [event, matchers] of Object.entries(config)) {
      if (!isHookEvent(event)) {
        this.warn(`${origin}: hooks for unknown event ${JSON.stringify(event)} are ignored`);
        continue;
      }
      const list: CommandEntry[] = [];
      for (const m of matchers) {
        for (const h of m.hooks) {
          if (h.type !== 'command' || !h.command) {
            this.warn(`${origin}: ${event} hook of type ${JSON.stringify(h.type)} is not supported and is ignored`);
            continue;
          }
          list.push({
            matcher: m.matcher,
            hook: { command: h.command, timeout: h.timeout, async: h.async, ...(env ? { env } : {}) },
          });
        }
      }
      if (list.length > 0) out.set(event, list);
    }
    return out;
  }

  /** From the `initialize` control request, which arrives after start-up. */
  setCallbackHooks(config: CallbackHooksConfig, callHost?: CallHost): void {
    if (callHost) this.callHost = callHost;
    this.callbacks.clear();
    for (const [event, matchers] of Object.entries(config)) {
      if (!isHookEvent(event)) continue; // a newer host may register events we never fire
      const list = matchers.flatMap((m) =>
        m.hookCallbackIds.map((id) => ({ matcher: m.matcher, id, timeout: m.timeout })),
      );
      if (list.length > 0) this.callbacks.set(event, list);
    }
  }

  /** Cheap: lets callers skip building inputs when no hook listens. */
  has(event: HookEvent): boolean {
    return (
      this.commands.has(event) ||
      this.pluginCommands.has(event) ||
      (this.callbacks.has(event) && this.callHost !== undefined)
    );
  }

  async run(event: HookEvent, fields: object, opts: HookRunOptions): Promise<HookOutcome> {
    if (!this.has(event)) return emptyOutcome();
    const warnBadMatcher = (msg: string) => this.warn(msg);
    const matches = (m: string | null | undefined) =>
      matcherMatches(m, opts.matchValue, warnBadMatcher) ||
      (opts.matchAlso !== undefined && matcherMatches(m, opts.matchAlso, warnBadMatcher));
    const input = { ...this.opts.base(), hook_event_name: event, ...fields };
    const cwd = this.opts.base().cwd;
    const jobs: Array<Promise<HookResult>> = [];
    debugLog('hooks', () => `${event}${opts.matchValue ? ` (${opts.matchValue})` : ''}: running matching hooks`);
    const seen = new Set<string>();
    for (const c of [...(this.commands.get(event) ?? []), ...(this.pluginCommands.get(event) ?? [])]) {
      if (!matches(c.matcher) || seen.has(c.hook.command)) continue;
      seen.add(c.hook.command); // the same command registered twice runs once
      const report = this.opts.onHookEvent;
      const hook: HookRun = {
        hookId: randomUUID(),
        hookName: opts.matchValue ? `${event}:${opts.matchValue}` : event,
        hookEvent: event,
      };
      report?.({ kind: 'started', hook });
      const progress = report ? this.watchOutput((output) => report({ kind: 'progress', hook, output })) : undefined;
      const run = runCommandHook(c.hook, {
        observe: report
          ? (raw) => {
              progress?.stop();
              report({
                kind: 'response',
                hook,
                output: { output: raw.stdout + raw.stderr, stdout: raw.stdout, stderr: raw.stderr },
                ...(raw.exitCode !== null ? { exitCode: raw.exitCode } : {}),
                outcome: raw.outcome,
              });
            }
          : undefined,
        onOutput: progress?.onOutput,
        event,
        input,
        cwd,
        signal: opts.signal,
        warn: this.warn,
        defaultTimeoutMs: this.opts.defaultTimeoutMs,
        env: this.opts.env,
      });
      if (c.hook.async)
        void run; // fire and forget; its own timeout still ends it
      else jobs.push(run);
    }
    const callHost = this.callHost;
    if (callHost) {
      for (const c of this.callbacks.get(event) ?? []) {
        if (!matches(c.matcher)) continue;
        jobs.push(
          runCallbackHook(c.id, {
            event,
            input,
            toolUseId: opts.toolUseId,
            timeout: c.timeout,
            signal: opts.signal,
            callHost,
            warn: this.warn,
            defaultTimeoutMs: this.opts.defaultTimeoutMs,
          }),
        );
      }
    }
    if (jobs.length === 0) return emptyOutcome();
    const merged = mergeResults(event, await Promise.all(jobs));
    debugLog('hooks', () => `${event}: ${jobs.length} hook(s) done`);
    return merged;
  }

  /**
   * While a command hook runs: every interval, if it printed something new, one hook_progress
   * with its output so far (the tail, past the cap). A hook that prints nothing sends none.
   */
  private watchOutput(send: (output: HookOutput) => void) {
    let stdout = '';
    let stderr = '';
    let changed = false;
    const tail = (s: string) => (s.length > PROGRESS_MAX_CHARS ? s.slice(s.length - PROGRESS_MAX_CHARS) : s);
    const timer = setInterval(() => {
      if (!changed) return;
      changed = false;
      send({ stdout, stderr, output: stdout + stderr });
    }, this.opts.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
    timer.unref();
    return {
      onOutput: (chunk: string, stream: 'stdout' | 'stderr') => {
        if (stream === 'stdout') stdout = tail(stdout + chunk);
        else stderr = tail(stderr + chunk);
        changed = true;
      },
      stop: () => clearInterval(timer),
    };
  }
}
