// The session's permission state: mode, compiled rules and working directories. Mutable,
// because set_permission_mode and a host's updatedPermissions change it mid-session.
import { compileBashPattern, type BashPattern } from '../util/shellCommand.js';
import { validatePermissionMode, type PermissionMode } from './modes.js';
import { compilePathPattern, workingDir, type PathPattern, type WorkingDir } from './paths.js';
import { formatRule, parseRule, ruleFromValue, type PermissionRule, type RuleBehavior } from './rules.js';
import { COMMAND_RULE_NAMES } from '../../tools/tool.js';
import type { PermissionUpdate } from './updates.js';

export interface RuleEntry {
  rule: PermissionRule;
  /** The rule as written, for messages. */
  text: string;
  bash?: BashPattern;
  path?: PathPattern;
}

/** The session sandbox as the decision sees it (src/sandbox's CommandSandbox fits). */
export interface BashSandboxPolicy {
  readonly status: { active: boolean };
  readonly autoAllowBashIfSandboxed: boolean;
  readonly allowUnsandboxedCommands: boolean;
  sandboxes(command: string, disableRequested?: boolean): boolean;
}

export interface PermissionStateOptions {
  mode: PermissionMode;
  allow: string[];
  deny: string[];
  ask: string[];
  additionalDirectories: string[];
  cwd: string;
  /** --dangerously-skip-permissions or --allow-dangerously-skip-permissions was given. */
  allowBypass: boolean;
}

export class PermissionState {
  /** Where relative paths resolve: the session's cwd, or the worktree the agent moved into. */
  cwd: string;
  /** The cwd the rules were written for (the session's start): their path patterns are anchored there. */
  readonly ruleCwd: string;
  /** Path patterns re-anchored at a moved cwd, per rule and cwd. */
  private readonly reanchored = new WeakMap<RuleEntry, Map<string, PathPattern>>();
  readonly allowBypass: boolean;
  private currentMode: PermissionMode;
  readonly rules: Record<RuleBehavior, RuleEntry[]> = { allow: [], deny: [], ask: [] };
  workingDirs: WorkingDir[];
  /** The project's persistent-memory folder (src/prompt/autoMemory.ts): the file tools use it unasked. */
  memoryDir?: WorkingDir;
  /** Set once the session's sandbox is up: autoAllowBashIfSandboxed, dangerouslyDisableSandbox. */
  sandbox?: BashSandboxPolicy;
  /**
   * set_mcp_permission_mode_override: normalized MCP server names whose tools are decided as in
   * `default` mode where the session mode would allow them unasked (tighten-only).
   */
  readonly mcpServersAsked = new Set<string>();
  /** Told when the rules, the working directories or the cwd changed (the sandbox follows them). */
  private readonly listeners = new Set<() => void>();
  private batching = 0;
  private pendingChange = false;

  constructor(opts: PermissionStateOptions) {
    this.cwd = opts.cwd;
    this.ruleCwd = opts.cwd;
    this.allowBypass = opts.allowBypass;
    this.currentMode = validatePermissionMode(opts.mode, { allowBypass: opts.allowBypass });
    for (const behavior of ['allow', 'deny', 'ask'] as const) {
      for (const text of opts[behavior]) this.addRule(behavior, parseRule(text));
    }
    this.workingDirs = [workingDir(opts.cwd, opts.cwd)];
    for (const d of opts.additionalDirectories) this.addDirectory(d);
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  /** The mode plan mode was entered from: where leaving it (ExitPlanMode) returns to. */
  modeBeforePlan: PermissionMode = 'default';

  /** Throws PermissionConfigError for bypassPermissions without the opt-in flag. */
  setMode(mode: PermissionMode): void {
    const next = validatePermissionMode(mode, { allowBypass: this.allowBypass });
    if (next === 'plan' && this.currentMode !== 'plan') this.modeBeforePlan = this.currentMode;
    const changed = next !== this.currentMode;
    this.currentMode = next;
    if (changed) for (const fn of this.modeListeners) fn(next);
  }

  private readonly modeListeners = new Set<(mode: PermissionMode) => void>();

  /** Calls `fn` with the new mode after each change of mode (a host hears it as system/status). */
  onModeChange(fn: (mode: PermissionMode) => void): () => void {
    this.modeListeners.add(fn);
    return () => this.modeListeners.delete(fn);
  }

  compile(rule: PermissionRule): RuleEntry {
    const entry: RuleEntry = { rule, text: formatRule(rule) };
    if (rule.ruleContent !== undefined) {
      // Any other specifier may name paths: a file tool's rules spell them in its own name too
      // (`Read(…)`, or a new tool's `MyTool(src/**)`); the pattern is used only for file tools.
      if (COMMAND_RULE_NAMES.has(rule.toolName)) entry.bash = compileBashPattern(rule.ruleContent);
      else entry.path = compilePathPattern(rule.ruleContent, this.ruleCwd);
    }
    return entry;
  }

  /**
   * A path rule's patterns: as written (anchored at the start cwd) and, once the agent works in a
   * worktree, re-anchored there too. A rule matches if either matches, so a deny rule keeps
   * guarding the original tree and guards the same paths in the worktree.
   */
  pathsOf(entry: RuleEntry): PathPattern[] {
    if (!entry.path) return [];
    if (this.cwd === this.ruleCwd) return [entry.path];
    let byCwd = this.reanchored.get(entry);
    if (!byCwd) this.reanchored.set(entry, (byCwd = new Map()));
    let moved = byCwd.get(this.cwd);
    if (!moved) byCwd.set(this.cwd, (moved = compilePathPattern(entry.rule.ruleContent!, this.cwd)));
    return [entry.path, moved];
  }

  /** The agent works in `dir` now (EnterWorktree, ExitWorktree): it replaces the cwd as working directory. */
  moveTo(dir: string): void {
    this.cwd = dir;
    this.workingDirs[0] = workingDir(dir, dir);
    this.changed();
  }

  /** Calls `fn` after each change of the rules, working directories or cwd; returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Tells the listeners (once per batch). Public for code that edits `rules` in place (allowForTurn). */
  changed(): void {
    if (this.batching > 0) {
      this.pendingChange = true;
      return;
    }
    for (const fn of this.listeners) fn();
  }

  /** Runs `fn` and tells the listeners once at its end, if anything changed. */
  batch<T>(fn: () => T): T {
    this.batching++;
    try {
      return fn();
    } finally {
      if (--this.batching === 0 && this.pendingChange) {
        this.pendingChange = false;
        this.changed();
      }
    }
  }

  /**
   * The same rules, mode and directories seen from `dir` (a subagent in its own worktree): changes
   * made through the view (a host's "always allow", a mode, a directory) are the session's.
   */
  viewFrom(dir: string): PermissionState {
    const own = workingDir(dir, dir);
    return Object.create(this, {
      cwd: { value: dir },
      workingDirs: { get: () => [own, ...this.workingDirs], set: (v: WorkingDir[]) => (this.workingDirs = v) },
      setMode: { value: this.setMode.bind(this) },
      addDirectory: { value: this.addDirectory.bind(this) },
      removeDirectory: { value: this.removeDirectory.bind(this) },
      changed: { value: this.changed.bind(this) },
      batch: { value: this.batch.bind(this) },
    }) as PermissionState;
  }

  addRule(behavior: RuleBehavior, rule: PermissionRule): void {
    const entry = this.compile(rule);
    if (this.rules[behavior].some((e) => e.text === entry.text)) return;
    this.rules[behavior].push(entry);
    this.changed();
  }

  removeRule(behavior: RuleBehavior, rule: PermissionRule): void {
    const text = formatRule(rule);
    const before = this.rules[behavior].length;
    this.rules[behavior] = this.rules[behavior].filter((e) => e.text !== text);
    if (this.rules[behavior].length !== before) this.changed();
  }

  addDirectory(dir: string): void {
    const wd = workingDir(dir, this.cwd);
    if (this.workingDirs.some((d) => d.real === wd.real)) return;
    this.workingDirs.push(wd);
    this.changed();
  }

  removeDirectory(dir: string): void {
    const wd = workingDir(dir, this.cwd);
    // cwd itself always stays a working directory.
    const before = this.workingDirs.length;
    this.workingDirs = this.workingDirs.filter((d, i) => i === 0 || d.real !== wd.real);
    if (this.workingDirs.length !== before) this.changed();
  }

  /**
   * Applies a host's updatedPermissions (or a PermissionRequest hook's). Every destination is
   * applied to this session only: we never write settings files on a host's behalf.
   * A rule that does not parse is skipped; a setMode to bypassPermissions without opt-in throws.
   */
  addRules(updates: PermissionUpdate[]): void {
    this.batch(() => this.applyUpdates(updates));
  }

  private applyUpdates(updates: PermissionUpdate[]): void {
    for (const u of updates) {
      switch (u.type) {
        case 'addRules':
          for (const r of u.rules) this.tryRule(() => this.addRule(u.behavior, ruleFromValue(r)));
          break;
        case 'replaceRules':
          this.rules[u.behavior] = [];
          this.changed();
          for (const r of u.rules) this.tryRule(() => this.addRule(u.behavior, ruleFromValue(r)));
          break;
        case 'removeRules':
          for (const r of u.rules) this.tryRule(() => this.removeRule(u.behavior, ruleFromValue(r)));
          break;
        case 'setMode':
          this.setMode(u.mode);
          break;
        case 'addDirectories':
          for (const d of u.directories) this.addDirectory(d);
          break;
        case 'removeDirectories':
          for (const d of u.directories) this.removeDirectory(d);
          break;
      }
    }
  }

  private tryRule(fn: () => void): void {
    try {
      fn();
    } catch {
      /* a malformed rule from a host changes nothing */
    }
  }
}

/** Throws RuleSyntaxError for a malformed rule and PermissionConfigError for a bad mode. */
export function createPermissionState(opts: PermissionStateOptions): PermissionState {
  return new PermissionState(opts);
}
