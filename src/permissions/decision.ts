// The decision for one tool call. Order: deny rules → plan mode → hook decision (deny > ask >
// allow) → tools that ask the user → ask rules → allow rules → mode → ask. dontAsk turns every remaining ask into a deny.
// What a call touches comes from its tool's declarations (kind, access): no tool is known here by name.
import { debugLog } from '../util/log.js';
import path from 'node:path';
import { EDIT_RULE_NAMES, READ_RULE_NAMES, type ToolAccess, type ToolKind } from '../../tools/tool.js';
import type { CallFacts } from '../../tools/toolCall.js';
import {
  allParts,
  parseBashCommand,
  partMatches,
  pathArguments,
  suggestPrefix,
  wholeMatches,
  type ParsedBash,
  type SimpleCommand,
} from '../util/shellCommand.js';
import {
  expandGlob,
  expandHome,
  inWorkingDirs,
  patternMatchesEither,
  patternMatchesReal,
  resolvePath,
  type ResolvedPath,
} from './paths.js';
import { acceptEditsAllowsShell } from './acceptEditsShell.js';
import { shellPartOnlyReads } from './readOnlyShell.js';
import { ruleNamesTool } from './rules.js';
import type { PermissionState, RuleEntry } from './state.js';
import { describeCall } from './toolInput.js';
import type { PermissionUpdate } from './updates.js';

export type PermissionDecision =
  | { behavior: 'allow'; reason: string }
  | {
      behavior: 'deny';
      message: string;
      reason: string;
      /** The reference's decision_reason_type for a denial the rules made: a deny rule, plan mode. */
      reasonType?: DenyReasonType;
    }
  | {
      behavior: 'ask';
      message: string;
      reason: string;
      blockedPath?: string;
      suggestions?: PermissionUpdate[];
      /** What would allow it without asking: `--allowedTools "Bash(npm test:*)"`, `--add-dir …`. */
      hint: string;
      /** The tool asks the user a question (no rule can answer it for them). */
      userInteraction?: true;
      /**
       * Why it asks, for a host's policy (the SDK's decision_reason_type), where the reference
       * names one (measured): an ask rule, a hook's ask, a file tool's path outside the working
       * directories. A plain "no rule allows it" and a shell command's path name none.
       */
      reasonType?: AskReasonType;
    };

export type AskReasonType = 'rule' | 'hook' | 'workingDir' | 'mode';
/** A shell command's deny rule is matched per subcommand: the reference names it so (measured). */
export type DenyReasonType = 'rule' | 'subcommandResults' | 'mode';

export interface HookPermissionDecision {
  behavior: 'allow' | 'deny' | 'ask';
  reason?: string;
}

export interface PermissionRequest {
  /**
   * The call as prepared (tools/toolCall.ts: a PreparedCall, or `callFacts` outside the pipeline):
   * what it touches and whether it only reads are its tool's answers, asked once there and read
   * here, never asked again.
   */
  call: CallFacts;
  hookDecision?: HookPermissionDecision;
}

/** A name standing for "any file in this folder" when a deny rule is checked against a search. */
const PROBE = '__any_file__';

type CallShape =
  | { kind: 'bash'; command: string; parsed: ParsedBash; every: SimpleCommand[]; leavesSandbox: boolean }
  | { kind: 'file'; paths: ResolvedPath[]; edit: boolean; search: boolean }
  | { kind: 'other' };

function shapeOf(state: PermissionState, kind: ToolKind, access: ToolAccess): CallShape {
  if (kind === 'execute') {
    const command = access.command ?? '';
    const leavesSandbox = access.leavesSandbox === true;
    return { kind: 'bash', command, parsed: parseBashCommand(command), every: allParts(command), leavesSandbox };
  }
  if (kind === 'read' || kind === 'search' || kind === 'edit') {
    const given = access.paths?.length ? access.paths : ['.'];
    const paths = given.map((p) => resolvePath(p, state.cwd));
    return { kind: 'file', paths, edit: kind === 'edit', search: kind === 'search' };
  }
  return { kind: 'other' };
}

/** Does a rule specifier of the tool's own (`WebFetch(domain:x)`, `Agent(reviewer)`) match? */
function otherContentMatches(entry: RuleEntry, req: PermissionRequest): boolean {
  const tool = req.call.tool;
  if (!tool?.matchesRuleContent) return false;
  try {
    return tool.matchesRuleContent(entry.rule.ruleContent!, req.call.input as never) === true;
  } catch {
    return false;
  }
}

/** Deny and ask rules: any spelling of any path, any part of a command, is enough. */
function matchesStrict(state: PermissionState, entry: RuleEntry, req: PermissionRequest, shape: CallShape): boolean {
  if (!ruleNamesTool(entry.rule, req.call.name, req.call.kind, req.call.tool)) return false;
  if (entry.rule.ruleContent === undefined) return true;
  if (shape.kind === 'bash' && entry.bash) {
    if (wholeMatches(entry.bash, shape.command)) return true;
    const words = { ...entry.bash, exactText: undefined };
    return shape.every.some((part) => partMatches(words, { ...part, writesFile: false }));
  }
  if (shape.kind === 'file' && entry.path) {
    // A search rooted at a folder reads what is inside it: `Read(./secret/**)` holds against
    // `Grep path=secret` as well as against `Read secret/key`.
    const inside = (p: ResolvedPath): ResolvedPath => ({
      lexical: path.join(p.lexical, PROBE),
      real: path.join(p.real, PROBE),
    });
    return state
      .pathsOf(entry)
      .some((pp) =>
        shape.paths.some((p) => patternMatchesEither(pp, p) || (shape.search && patternMatchesEither(pp, inside(p)))),
      );
  }
  return otherContentMatches(entry, req);
}

/** A deny/ask rule of Read (or Edit) reaching a file through a Bash argument: `cat secret/key`. */
function bashPathRule(state: PermissionState, entries: RuleEntry[], shape: CallShape): RuleEntry | undefined {
  if (shape.kind !== 'bash') return undefined;
  const pathRules = entries.filter(
    (e) => (READ_RULE_NAMES.has(e.rule.toolName) || EDIT_RULE_NAMES.has(e.rule.toolName)) && e.path,
  );
  if (pathRules.length === 0) return undefined;
  for (const part of shape.every) {
    const { reads, writes } = pathArguments(part);
    for (const [list, family] of [
      [reads, READ_RULE_NAMES],
      [writes, EDIT_RULE_NAMES],
    ] as const) {
      for (const arg of list) {
        for (const file of expandArg(arg, state.cwd)) {
          const p = resolvePath(file, state.cwd);
          const hit = pathRules.find(
            (e) => family.has(e.rule.toolName) && state.pathsOf(e).some((pp) => patternMatchesEither(pp, p)),
          );
          if (hit) return hit;
        }
      }
    }
  }
  return undefined;
}

/** A glob argument (`cat secre?/*`) stands for the files it expands to; bounded, for speed. */
function expandArg(arg: string, cwd: string): string[] {
  if (!/[*?[]/.test(arg)) return [arg];
  return [arg, ...expandGlob(expandHome(arg), cwd)];
}

function firstMatch(
  state: PermissionState,
  entries: RuleEntry[],
  req: PermissionRequest,
  shape: CallShape,
): RuleEntry | undefined {
  return entries.find((e) => matchesStrict(state, e, req, shape)) ?? bashPathRule(state, entries, shape);
}

/** Allow rules: every part of a command and the real path of every file must be covered. */
function allowedByRules(state: PermissionState, req: PermissionRequest, shape: CallShape): RuleEntry | undefined {
  const kind = req.call.kind;
  const entries = state.rules.allow.filter(
    (e) =>
      ruleNamesTool(e.rule, req.call.name, kind, req.call.tool) ||
      (shape.kind === 'file' && !shape.edit && EDIT_RULE_NAMES.has(e.rule.toolName)),
  );
  const whole = entries.find(
    (e) => e.rule.ruleContent === undefined && ruleNamesTool(e.rule, req.call.name, kind, req.call.tool),
  );
  if (whole) return whole;
  if (shape.kind === 'bash') {
    if (shape.parsed.unsafe.length > 0 || shape.parsed.parts.length === 0) return undefined;
    const bashRules = entries.filter((e) => e.bash);
    const compound = bashRules.find((e) => wholeMatches(e.bash!, shape.command));
    if (compound) return compound;
    let used: RuleEntry | undefined;
    for (const part of shape.parsed.parts) {
      const hit = bashRules.find((e) => partMatches(e.bash!, part));
      if (!hit) return undefined;
      used ??= hit;
    }
    return used;
  }
  if (shape.kind === 'file') {
    // An Edit permission implies Read permission on the same files.
    return entries.find(
      (e) => e.path && shape.paths.every((p) => state.pathsOf(e).some((pp) => patternMatchesReal(pp, p))),
    );
  }
  return entries.find((e) => e.rule.ruleContent !== undefined && otherContentMatches(e, req));
}

/**
 * Read-only as far as we can tell: the tool says so (the prepared call's answer), and for a shell
 * command our own parse agrees. The tool judged the whole line, so its word counts for a single
 * simple command only: a tool that looks at the first word cannot wave `echo a && touch X` through,
 * each part of a compound line must be one our own list knows only reads.
 */
function isReadOnlyCall(req: PermissionRequest, shape: CallShape): boolean {
  if (shape.kind !== 'bash') return req.call.readOnly;
  const { parsed } = shape;
  if (parsed.unsafe.length > 0 || parsed.parts.length === 0) return false;
  const single = parsed.parts.length === 1;
  return parsed.parts.every((p) => !p.writesFile && (shellPartOnlyReads(p) || (single && req.call.readOnly)));
}

/** Paths a Bash command names that lie outside the working directories (for read-only auto-allow). */
function bashOutsidePath(state: PermissionState, shape: CallShape): string | undefined {
  if (shape.kind !== 'bash') return undefined;
  for (const part of shape.parsed.parts) {
    for (const arg of pathArguments(part).reads) {
      if (!/^[./~]/.test(arg) && !arg.includes('/')) continue;
      const p = resolvePath(arg, state.cwd);
      if (!inWorkingDirs(p, state.workingDirs)) return p.real;
    }
  }
  return undefined;
}

function suggestionsFor(
  state: PermissionState,
  req: PermissionRequest,
  shape: CallShape,
  blocked?: string,
): { suggestions: PermissionUpdate[]; hint: string } {
  if (blocked !== undefined) {
    const dir = shape.kind === 'file' && shape.search ? blocked : path.dirname(blocked);
    return {
      suggestions: [{ type: 'addDirectories', directories: [dir], destination: 'session' }],
      hint: `--add-dir ${JSON.stringify(dir)} (or an allow rule such as --allowedTools "${req.call.name}(/${blocked})")`,
    };
  }
  if (shape.kind === 'bash') {
    const prefixes = [
      ...new Set(shape.parsed.parts.filter((p) => p.words.length > 0 && !allowedPart(state, p)).map(suggestPrefix)),
    ];
    const rules = prefixes.length > 0 && shape.parsed.unsafe.length === 0 ? prefixes : [];
    if (rules.length === 0) {
      return {
        suggestions: [],
        hint: `an allow rule for this exact command in settings, or --allowedTools "${req.call.name}" (${shape.parsed.unsafe.join(', ') || 'compound command'} cannot be matched by a prefix rule)`,
      };
    }
    return {
      suggestions: [
        {
          type: 'addRules',
          rules: rules.map((r) => ({ toolName: req.call.name, ruleContent: r })),
          behavior: 'allow',
          destination: 'session',
        },
      ],
      hint: `--allowedTools ${rules.map((r) => `"${req.call.name}(${r})"`).join(' ')}`,
    };
  }
  const content = suggestedContent(req);
  if (content !== undefined) {
    // The tool's own narrower rule (WebFetch: this site from now on, not every site).
    return {
      suggestions: [
        {
          type: 'addRules',
          rules: [{ toolName: req.call.name, ruleContent: content }],
          behavior: 'allow',
          destination: 'session',
        },
      ],
      hint: `--allowedTools "${req.call.name}(${content})"`,
    };
  }
  if (shape.kind === 'file' && shape.edit) {
    return {
      suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
      hint: `--permission-mode acceptEdits (or --allowedTools "${req.call.name}")`,
    };
  }
  return {
    suggestions: [
      { type: 'addRules', rules: [{ toolName: req.call.name }], behavior: 'allow', destination: 'session' },
    ],
    hint: `--allowedTools "${req.call.name}"`,
  };
}

function suggestedContent(req: PermissionRequest): string | undefined {
  if (!req.call.tool?.suggestRuleContent) return undefined;
  try {
    return req.call.tool.suggestRuleContent(req.call.input as never) || undefined;
  } catch {
    return undefined;
  }
}

function allowedPart(state: PermissionState, part: SimpleCommand): boolean {
  return state.rules.allow.some((e) => e.bash && partMatches(e.bash, part));
}

export function decidePermission(state: PermissionState, req: PermissionRequest): PermissionDecision {
  const decision = decide(state, req);
  debugLog(
    'permissions',
    () =>
      `${req.call.name}: ${decision.behavior}${'reason' in decision && decision.reason ? ` (${decision.reason})` : ''} [mode ${state.mode}]`,
  );
  return decision;
}

function decide(state: PermissionState, req: PermissionRequest): PermissionDecision {
  const { kind, access } = req.call;
  const shape = shapeOf(state, kind, access);
  const what = describeCall(req.call.name, kind, access);

  // 1. Deny rules, from any source, always win.
  const denied = firstMatch(state, state.rules.deny, req, shape);
  if (denied) {
    return {
      behavior: 'deny',
      message: `Permission to use ${what} has been denied by the rule ${denied.text}.`,
      reason: `deny rule ${denied.text}`,
      reasonType: kind === 'execute' ? 'subcommandResults' : 'rule',
    };
  }

  const readOnly = isReadOnlyCall(req, shape);
  const mode = state.mode;

  // 2. Plan mode: nothing with side effects runs, whatever else allows it.
  // Tools that steer the session itself (kind 'think') are let through.
  if (mode === 'plan' && !readOnly && kind !== 'think') {
    const message = `${what} was not run: the session is in plan mode, where only read-only tools run. Finish researching, present your plan and wait for approval before making changes.`;
    // A file edit is put to whoever can answer (the reference asks the host, measured); with nobody
    // to ask it is denied with this message. No allow rule or hook answers it instead.
    if (kind === 'edit' && req.hookDecision?.behavior !== 'deny')
      return {
        behavior: 'ask',
        message,
        reason: 'plan mode',
        hint: 'leaving plan mode (ExitPlanMode, or a host’s set_permission_mode)',
        reasonType: 'mode',
      };
    return { behavior: 'deny', message, reason: 'plan mode', reasonType: 'mode' };
  }

  // 3. A hook's deny; 4. ask (hook or ask rule).
  const hook = req.hookDecision;
  if (hook?.behavior === 'deny') {
    return {
      behavior: 'deny',
      message: hook.reason || `Permission to use ${what} was denied by a PreToolUse hook.`,
      reason: 'hook',
    };
  }
  // A call the tool refuses in this mode (ExitPlanMode outside plan mode).
  const refused = req.call.tool?.refuseInMode?.(state.mode);
  if (refused) return { behavior: 'deny', ...refused };
  // A question for the person is asked whatever the mode or the allow rules: the answer is the point.
  if (req.call.tool?.requiresUserInteraction) {
    const reason = `${req.call.name} asks the user`;
    if (state.mode === 'dontAsk') {
      return {
        behavior: 'deny',
        message: `${req.call.name} was not run: the session is in dontAsk mode, where no one is asked. Decide without the user and say what you assumed.`,
        reason: `dontAsk mode: ${reason}`,
      };
    }
    return {
      behavior: 'ask',
      message: `${what} needs the user's answer.`,
      reason,
      suggestions: [],
      hint: 'a host that answers can_use_tool (--permission-prompt-tool stdio) or a person at the terminal',
      userInteraction: true,
    };
  }
  // A command that asks to leave an active sandbox is always asked about: no rule, hook or mode
  // allows it on its own (dontAsk turns the ask into a deny).
  const sandbox = state.sandbox?.status.active ? state.sandbox : undefined;
  const disableSandbox = shape.kind === 'bash' && shape.leavesSandbox;
  if (sandbox && disableSandbox && sandbox.allowUnsandboxedCommands) {
    const reason = 'the command asks to run outside the sandbox (dangerouslyDisableSandbox)';
    if (mode === 'dontAsk')
      return {
        behavior: 'deny',
        message: `Permission to use ${what} outside the sandbox was denied: the session is in dontAsk mode.`,
        reason: `dontAsk mode: ${reason}`,
      };
    return {
      behavior: 'ask',
      message: `${what} needs permission: ${reason}.`,
      reason,
      suggestions: [],
      hint: '--permission-prompt-tool stdio (a command outside the sandbox is never allowed by a rule)',
    };
  }
  const askRule = firstMatch(state, state.rules.ask, req, shape);
  if (hook?.behavior === 'ask' || askRule) {
    const reason = askRule ? `ask rule ${askRule.text}` : hook?.reason || 'a PreToolUse hook asked for confirmation';
    return finishAsk(state, req, shape, what, reason, undefined, askRule ? 'rule' : 'hook');
  }
  // 5. A hook's allow; 6. allow rules.
  if (hook?.behavior === 'allow') return { behavior: 'allow', reason: hook.reason || 'PreToolUse hook' };
  const allowed = allowedByRules(state, req, shape);
  if (allowed) return { behavior: 'allow', reason: `allow rule ${allowed.text}` };

  // The memory folder: the file tools read and write it unasked, as the reference does (deny and
  // ask rules, hooks and plan mode were heard above; deleting a memory with Bash still asks).
  const memory = state.memoryDir;
  if (memory && shape.kind === 'file' && shape.paths.length && shape.paths.every((p) => inWorkingDirs(p, [memory])))
    return { behavior: 'allow', reason: "the project's memory folder" };

  // autoAllowBashIfSandboxed: what runs inside the sandbox needs no ask (deny and ask rules held above).
  if (sandbox?.autoAllowBashIfSandboxed && shape.kind === 'bash' && sandbox.sandboxes(shape.command, disableSandbox)) {
    return { behavior: 'allow', reason: 'sandboxed (sandbox.autoAllowBashIfSandboxed)' };
  }

  // 7. The mode.
  if (mode === 'bypassPermissions') {
    const server = [...state.mcpServersAsked].find((name) => req.call.name.startsWith(`mcp__${name}__`));
    if (server === undefined) return { behavior: 'allow', reason: 'mode bypassPermissions' };
    return finishAsk(
      state,
      req,
      shape,
      what,
      `the MCP server "${server}" has the permission mode override "default" (its tools are asked about in bypassPermissions mode)`,
    );
  }
  let blocked: string | undefined;
  if (mode === 'acceptEdits' && shape.kind === 'bash') {
    const verdict = acceptEditsAllowsShell(shape.parsed, state.cwd, state.workingDirs);
    if (verdict.allowed)
      return { behavior: 'allow', reason: 'mode acceptEdits (file commands inside the working directories)' };
    blocked = verdict.outside;
  }
  if (shape.kind === 'file') {
    blocked = shape.paths.find((p) => !inWorkingDirs(p, state.workingDirs))?.real;
    if (blocked === undefined) {
      if (readOnly && !shape.edit)
        return { behavior: 'allow', reason: 'read-only tool inside the working directories' };
      if (mode === 'acceptEdits' && shape.edit) return { behavior: 'allow', reason: 'mode acceptEdits' };
    }
  } else if (readOnly && kind !== 'fetch' && !req.call.name.startsWith('mcp__')) {
    // A fetch is read-only but reaches the network (and a search is billed): never allowed by default.
    blocked = bashOutsidePath(state, shape);
    if (blocked === undefined) return { behavior: 'allow', reason: 'read-only tool' };
  }
  return finishAsk(
    state,
    req,
    shape,
    what,
    blocked ? `${blocked} is outside the working directories` : 'no rule allows it',
    blocked,
    blocked !== undefined && shape.kind === 'file' ? 'workingDir' : undefined,
  );
}

function finishAsk(
  state: PermissionState,
  req: PermissionRequest,
  shape: CallShape,
  what: string,
  reason: string,
  blocked?: string,
  reasonType?: AskReasonType,
): PermissionDecision {
  const { suggestions, hint } = suggestionsFor(state, req, shape, blocked);
  if (state.mode === 'dontAsk') {
    return {
      behavior: 'deny',
      message: `Permission to use ${what} was denied: the session is in dontAsk mode and ${reason}. It would be allowed by ${hint}.`,
      reason: `dontAsk mode: ${reason}`,
    };
  }
  return {
    behavior: 'ask',
    message: `${what} needs permission: ${reason}.`,
    reason,
    ...(blocked !== undefined ? { blockedPath: blocked } : {}),
    suggestions,
    hint,
    ...(reasonType ? { reasonType } : {}),
  };
}
