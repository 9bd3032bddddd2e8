// Loads user, project and local settings plus --settings, validates each file whole, merges.
// A broken file throws SettingsError: the run must not start with half a configuration.
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { PermissionMode } from '../permissions/modes.js';
import { settingsSchema, type HookMatcherConfig, type HooksSettings, type Settings } from './schema.js';
import { configDir } from '../util/configDir.js';
import { StartupError } from '../util/startupError.js';

export type SettingSource = 'user' | 'project' | 'local';
export const ALL_SOURCES: SettingSource[] = ['user', 'project', 'local'];

/** `--setting-sources user,project`: the sources named, in order; absent: all. An unknown name stops the start. */
export function parseSettingSources(value: string | undefined): SettingSource[] {
  if (value === undefined) return ALL_SOURCES;
  const out: SettingSource[] = [];
  for (const s of value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (s !== 'user' && s !== 'project' && s !== 'local')
      throw new StartupError(`--setting-sources: unknown source ${JSON.stringify(s)} (use user, project, local)`, 2);
    out.push(s);
  }
  return out;
}

export class SettingsError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}

export interface LoadedFile {
  /** `managed`: policy settings, merged last, so nothing below overrides them. */
  source: SettingSource | 'flag' | 'managed';
  /** The file, or `--settings` for inline JSON. */
  path: string;
  settings: Settings;
}

export interface LoadedSettings {
  /** Merged: higher precedence wins for plain keys; objects merge key by key. */
  settings: Settings;
  permissions: {
    allow: string[];
    deny: string[];
    ask: string[];
    defaultMode?: PermissionMode;
    additionalDirectories: string[];
  };
  /** Hooks of every loaded source, lowest precedence first (all of them run). */
  hooks: HooksSettings;
  /** What was loaded, lowest precedence first. */
  files: LoadedFile[];
}

export interface LoadSettingsOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  sources?: SettingSource[];
  /** `--settings FILE_OR_JSON`. */
  settingsArg?: string;
  /** `--project-config-root DIR`: where the project and local files live (default: cwd). */
  projectRoot?: string;
  /** `--managed-settings JSON-OR-FILE`; otherwise the managed file (see managedSettingsPath). */
  managedArg?: string;
  /** Settings a host applied at run time (apply_flag_settings): above --settings, below managed. */
  flagLayer?: Settings;
}

/** `--project-config-root`, resolved against the cwd; the cwd without it. The one rule for where the project's files live. */
export function projectRootOf(cwd: string, flag: string | undefined): string {
  return flag ? path.resolve(cwd, flag) : cwd;
}

/** The machine's policy file; AGENT_MANAGED_SETTINGS_FILE names another (tests, odd installs). */
export function managedSettingsPath(env: NodeJS.ProcessEnv): string {
  return env.AGENT_MANAGED_SETTINGS_FILE || '/etc/claude-code/managed-settings.json';
}

export function settingsPaths(projectRoot: string, env: NodeJS.ProcessEnv): Record<SettingSource, string> {
  const userDir = configDir(env);
  return {
    user: path.join(userDir, 'settings.json'),
    project: path.join(projectRoot, '.claude', 'settings.json'),
    local: path.join(projectRoot, '.claude', 'settings.local.json'),
  };
}

/** Where V8's JSON.parse error points, as a character offset into the text, when it can tell. */
function errorOffset(text: string, message: string): number | undefined {
  const pos = /at position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  if (/Unexpected end of JSON input/.test(message)) return text.length;
  // Node 20 style: `Unexpected token ']', ...": ["Read",]\n}"... is not valid JSON` — V8 quotes up
  // to 10 characters either side of the token; find that excerpt in the text.
  const m = /Unexpected token '([\s\S])', (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON/.exec(message);
  if (!m) return undefined;
  const cut = m[2] !== undefined;
  const excerpt = m[3];
  const at = text.indexOf(excerpt);
  if (at === -1) return undefined;
  return at + (cut ? 10 : Math.max(0, excerpt.indexOf(m[1])));
}

/** V8's message plus "line 3 column 5" when we can tell where. */
function locate(text: string, message: string): string {
  const offset = errorOffset(text, message);
  if (offset === undefined) return message;
  const before = text.slice(0, offset).split('\n');
  return `${message.split('\n')[0]}; line ${before.length} column ${before[before.length - 1].length + 1}`;
}

function issuePath(p: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const k of p) out += typeof k === 'number' ? `[${k}]` : out === '' ? String(k) : `.${String(k)}`;
  return out;
}

function describeIssues(file: string, issues: z.core.$ZodIssue[]): string {
  const lines = issues
    .slice(0, 5)
    .map((i) => (i.path.length === 0 ? `the top level ${i.message}` : `${issuePath(i.path)} ${i.message}`));
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `${file}: ${lines.join('; ')}${more}`;
}

export function parseSettingsText(text: string, where: string): Settings {
  if (text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(`${where}: not valid JSON (${locate(text, (err as Error).message)})`, where);
  }
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) throw new SettingsError(describeIssues(where, parsed.error.issues), where);
  return parsed.data;
}

function readSettingsFile(file: string, required: boolean): Settings | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && (code === 'ENOENT' || code === 'ENOTDIR')) return undefined;
    throw new SettingsError(`${file}: cannot be read (${(err as Error).message})`, file);
  }
  return parseSettingsText(text, file);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function deepMerge(low: Record<string, unknown>, high: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...low };
  for (const [k, v] of Object.entries(high)) {
    out[k] = isPlainObject(out[k]) && isPlainObject(v) ? deepMerge(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

const union = (lists: Array<string[] | undefined>): string[] => [...new Set(lists.flatMap((l) => l ?? []))];

export function loadSettings(opts: LoadSettingsOptions): LoadedSettings {
  const paths = settingsPaths(opts.projectRoot ?? opts.cwd, opts.env);
  const files: LoadedFile[] = [];
  for (const source of ALL_SOURCES) {
    if (!(opts.sources ?? ALL_SOURCES).includes(source)) continue;
    const settings = readSettingsFile(paths[source], false);
    if (settings) files.push({ source, path: paths[source], settings });
  }
  if (opts.settingsArg !== undefined && opts.settingsArg.trim() !== '') {
    const arg = opts.settingsArg.trim();
    if (arg.startsWith('{'))
      files.push({ source: 'flag', path: '--settings', settings: parseSettingsText(arg, '--settings') });
    else {
      const file = path.resolve(opts.cwd, arg);
      files.push({ source: 'flag', path: file, settings: readSettingsFile(file, true)! });
    }
  }
  if (opts.flagLayer) files.push({ source: 'flag', path: 'apply_flag_settings', settings: opts.flagLayer });
  const managed = readManaged(opts);
  if (managed) files.push(managed);
  return mergeSettings(files);
}

function readManaged(opts: LoadSettingsOptions): LoadedFile | undefined {
  const arg = opts.managedArg?.trim();
  if (arg) {
    if (arg.startsWith('{'))
      return { source: 'managed', path: '--managed-settings', settings: parseSettingsText(arg, '--managed-settings') };
    const file = path.resolve(opts.cwd, arg);
    return { source: 'managed', path: file, settings: readSettingsFile(file, true)! };
  }
  const file = managedSettingsPath(opts.env);
  const settings = readSettingsFile(file, false);
  return settings && { source: 'managed', path: file, settings };
}

/** Files lowest precedence first. */
export function mergeSettings(files: LoadedFile[]): LoadedSettings {
  let merged: Record<string, unknown> = {};
  for (const f of files) merged = deepMerge(merged, f.settings);
  const perms = files.map((f) => f.settings.permissions ?? {});
  const hooks: HooksSettings = {};
  for (const f of files) {
    for (const [event, matchers] of Object.entries(f.settings.hooks ?? {})) {
      (hooks[event] ??= []).push(...(matchers as HookMatcherConfig[]));
    }
  }
  merged.hooks = hooks;
  const defaultMode = [...perms].reverse().find((p) => p.defaultMode !== undefined)?.defaultMode;
  const permissions: LoadedSettings['permissions'] = {
    allow: union(perms.map((p) => p.allow)),
    deny: union(perms.map((p) => p.deny)),
    ask: union(perms.map((p) => p.ask)),
    additionalDirectories: union(perms.map((p) => p.additionalDirectories)),
    ...(defaultMode !== undefined ? { defaultMode } : {}),
  };
  merged.permissions = { ...(merged.permissions as object), ...permissions };
  return { settings: merged as Settings, permissions, hooks, files };
}
