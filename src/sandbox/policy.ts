// What the sandbox enforces, computed from the settings files and the permission rules: the
// runtime config handed to @anthropic-ai/sandbox-runtime, and which commands run outside it.
// Pure functions of their inputs (no I/O but path resolution), so they are unit-tested alone.
import os from 'node:os';
import path from 'node:path';
import { allParts, compileBashPattern, partMatches, parseBashCommand } from '../util/shellCommand.js';
import { parseRule } from '../permissions/rules.js';
import { EDIT_RULE_NAMES as EDIT_FAMILY, READ_RULE_NAMES as READ_FAMILY } from '../../tools/tool.js';
import type { LoadedFile } from '../settings/load.js';
import type { SandboxSettings } from '../settings/sandbox.js';

/** The sandbox settings of every source merged: plain keys from the highest source, lists joined. */
export interface MergedSandboxSettings extends SandboxSettings {
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[]; allowRead: string[] };
  network: NonNullable<SandboxSettings['network']> & {
    allowedDomains: string[];
    deniedDomains: string[];
    allowUnixSockets: string[];
  };
  excludedCommands: string[];
  ignoreViolations: Record<string, string[]>;
}

const uniq = (xs: string[]): string[] => [...new Set(xs)];

/**
 * A sandbox path as written in a settings file: `/abs`, `~/x`, or relative to that file's root
 * (the project for project, local and --settings; the config directory for user settings).
 */
export function resolveSettingsPath(p: string, root: string, home = os.homedir()): string {
  if (p.startsWith('//')) return p.slice(1);
  if (p === '~' || p.startsWith('~/')) return path.join(home, p.slice(1));
  if (path.isAbsolute(p)) return p;
  return path.join(root, p);
}

export function mergeSandboxSettings(files: LoadedFile[], cwd: string, configDir: string): MergedSandboxSettings {
  const out: MergedSandboxSettings = {
    filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] },
    network: { allowedDomains: [], deniedDomains: [], allowUnixSockets: [] },
    excludedCommands: [],
    ignoreViolations: {},
  };
  for (const f of files) {
    const s = f.settings.sandbox as SandboxSettings | undefined;
    if (!s) continue;
    const root = f.source === 'user' ? configDir : cwd;
    const { filesystem, network, excludedCommands, ignoreViolations, ...plain } = s;
    Object.assign(out, plain);
    if (filesystem) {
      const { allowWrite, denyWrite, denyRead, allowRead, ...rest } = filesystem;
      const fs = out.filesystem;
      Object.assign(fs, rest);
      fs.allowWrite = uniq([...fs.allowWrite, ...(allowWrite ?? []).map((p) => resolveSettingsPath(p, root))]);
      fs.denyWrite = uniq([...fs.denyWrite, ...(denyWrite ?? []).map((p) => resolveSettingsPath(p, root))]);
      fs.denyRead = uniq([...fs.denyRead, ...(denyRead ?? []).map((p) => resolveSettingsPath(p, root))]);
      fs.allowRead = uniq([...fs.allowRead, ...(allowRead ?? []).map((p) => resolveSettingsPath(p, root))]);
    }
    if (network) {
      const { allowedDomains, deniedDomains, allowUnixSockets, ...rest } = network;
      const n = out.network;
      Object.assign(n, rest);
      n.allowedDomains = uniq([...n.allowedDomains, ...(allowedDomains ?? [])]);
      n.deniedDomains = uniq([...n.deniedDomains, ...(deniedDomains ?? [])]);
      n.allowUnixSockets = uniq([
        ...n.allowUnixSockets,
        ...(allowUnixSockets ?? []).map((p) => resolveSettingsPath(p, root)),
      ]);
    }
    if (excludedCommands) out.excludedCommands = uniq([...out.excludedCommands, ...excludedCommands]);
    if (ignoreViolations) {
      for (const [cmd, paths] of Object.entries(ignoreViolations))
        out.ignoreViolations[cmd] = uniq([...(out.ignoreViolations[cmd] ?? []), ...paths]);
    }
  }
  return out;
}

/**
 * A Read/Edit rule's path specifier (gitignore-style, as src/permissions/paths.ts reads it) as a
 * sandbox path: `//abs` absolute, `~/x` home, `/x` and `./x` and `x/y` under cwd, and a pattern
 * without a slash at any depth under cwd.
 */
export function rulePathToSandboxPaths(content: string, cwd: string, home = os.homedir()): string[] {
  if (content.startsWith('//')) return [content.slice(1)];
  if (content === '~' || content.startsWith('~/')) return [path.join(home, content.slice(1))];
  if (content.startsWith('/')) return [path.join(cwd, content)];
  if (content.startsWith('./')) return [path.join(cwd, content.slice(2))];
  const bare = content.replace(/\/+$/, '');
  if (!bare.includes('/')) return uniq([path.join(cwd, bare), path.join(cwd, '**', bare)]);
  return [path.join(cwd, content)];
}

/** The parts of the permission rules the sandbox turns into filesystem and network limits. */
export function rulesToSandbox(
  rules: { allow: string[]; deny: string[] },
  cwd: string,
): {
  denyRead: string[];
  denyWrite: string[];
  allowWrite: string[];
  allowedDomains: string[];
  deniedDomains: string[];
} {
  const out = {
    denyRead: [] as string[],
    denyWrite: [] as string[],
    allowWrite: [] as string[],
    allowedDomains: [] as string[],
    deniedDomains: [] as string[],
  };
  const each = (list: string[], fn: (tool: string, content: string) => void) => {
    for (const text of list) {
      let rule;
      try {
        rule = parseRule(text);
      } catch {
        continue; // the permission state reports bad rules; the sandbox need not say it twice
      }
      if (rule.ruleContent !== undefined && rule.ruleContent !== '' && rule.ruleContent !== '*')
        fn(rule.toolName, rule.ruleContent);
    }
  };
  each(rules.deny, (tool, content) => {
    if (READ_FAMILY.has(tool)) out.denyRead.push(...rulePathToSandboxPaths(content, cwd));
    else if (EDIT_FAMILY.has(tool)) out.denyWrite.push(...rulePathToSandboxPaths(content, cwd));
    else if (tool === 'WebFetch' && content.startsWith('domain:'))
      out.deniedDomains.push(content.slice('domain:'.length));
  });
  each(rules.allow, (tool, content) => {
    if (EDIT_FAMILY.has(tool)) out.allowWrite.push(...rulePathToSandboxPaths(content, cwd));
    else if (tool === 'WebFetch' && content.startsWith('domain:'))
      out.allowedDomains.push(content.slice('domain:'.length));
  });
  return out;
}

/**
 * `excludedCommands` entries are Bash rule specifiers (`docker`, `docker:*`, `npm run build`); a
 * bare word or words also match with arguments. A compound command is excluded only when every
 * part is: `docker ps && curl evil.example` stays in the sandbox.
 */
export function isExcludedCommand(patterns: string[], command: string): boolean {
  if (patterns.length === 0) return false;
  const parsed = parseBashCommand(command);
  if (parsed.unsafe.length > 0 || parsed.parts.length === 0) return false;
  const compiled = patterns.map((p) =>
    /(:\*| \*)$/.test(p.trim()) ? compileBashPattern(p) : compileBashPattern(`${p.trim()}:*`),
  );
  const parts = allParts(command);
  return parts.every((part) => compiled.some((c) => partMatches(c, part)));
}
