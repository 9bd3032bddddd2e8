// Settings control requests. apply_flag_settings merges into the session's run-time flag layer
// (above --settings, below managed settings) and re-applies what a live session can take:
// permission rules, directories and mode, and the model. update_settings merges allowlisted keys
// into a settings file, written atomically. A key either request cannot honour is refused by name.
import { randomUUID } from '../util/ids.js';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import { parseRule } from '../permissions/rules.js';
import { validatePermissionMode, type PermissionMode } from '../permissions/modes.js';
import type { PermissionState } from '../permissions/index.js';
import type { LoadedSettings, SettingSource } from '../settings/load.js';
import { parseSettingsText } from '../settings/load.js';
import type { Settings } from '../settings/schema.js';
import { EFFORT_LEVELS } from '../loop/pricing.js';
import type { ControlChannel } from './channel.js';
import { parseControlRequest } from './parseRequest.js';

/** The keys apply_flag_settings can re-apply to a running session. */
const LIVE_KEYS = ['permissions', 'model'] as const;

export interface SettingsControlDeps {
  /** The session's settings files loaded again, with this flag layer on top (managed still wins). */
  reload: (flagLayer: Settings) => LoadedSettings;
  /** The settings as loaded at start. */
  initial: LoadedSettings;
  permissions: PermissionState;
  /** Rules and directories from the command line: kept whatever the settings say. */
  cliRules: { allow: string[]; deny: string[]; dirs: string[] };
  /** A model alias or id; undefined goes back to the session's starting model. */
  setModel: (model: string | undefined) => void;
  currentModel: () => string;
  sources: SettingSource[];
  paths: Record<SettingSource, string>;
  /** The output styles there are; `use` switches the session to one (throws for an unknown name). */
  outputStyles: { names(): string[]; use(name: string): void };
}

const applySchema = lazySchema(() =>
  z.object({
    settings: z.record(z.string(), z.unknown(), { error: 'apply_flag_settings: settings must be an object' }),
  }),
);
const updateSchema = lazySchema(() =>
  z.object({
    source: z.enum(['localSettings', 'userSettings'], {
      error: 'update_settings: source must be localSettings or userSettings',
    }),
    settings: z.record(z.string(), z.unknown(), { error: 'update_settings: settings must be an object' }),
  }),
);

export function registerSettingsControlHandlers(channel: ControlChannel, deps: SettingsControlDeps): void {
  let flagLayer: Record<string, unknown> = {};
  let current = deps.initial;

  channel.on('apply_flag_settings', (req) => {
    const { settings } = parseControlRequest(applySchema, req, 'apply_flag_settings');
    const unsupported = Object.keys(settings).filter((k) => !(LIVE_KEYS as readonly string[]).includes(k));
    if (unsupported.length)
      throw new Error(
        `apply_flag_settings: ${unsupported.join(', ')} cannot be applied to a running session by this agent runtime (supported: ${LIVE_KEYS.join(', ')})`,
      );
    const next = mergeLayer(flagLayer, settings);
    const layer = parseSettingsText(JSON.stringify(next), 'apply_flag_settings');
    if (next.model !== undefined && (typeof next.model !== 'string' || next.model.trim() === ''))
      throw new Error('apply_flag_settings: model must be a model id or alias');
    const loaded = deps.reload(layer);
    // Everything is checked before anything changes: a refused request leaves the session as it was.
    const mode = modeChange(current, loaded, deps.permissions);
    for (const r of [...loaded.permissions.allow, ...loaded.permissions.deny, ...loaded.permissions.ask]) parseRule(r);
    deps.permissions.batch(() => syncRules(deps, current, loaded));
    if (mode !== undefined) deps.permissions.setMode(mode);
    if ('model' in settings) deps.setModel(typeof next.model === 'string' ? next.model : undefined);
    flagLayer = next;
    current = loaded;
    return {};
  });

  channel.on('update_settings', (req) => {
    const { source, settings } = parseControlRequest(updateSchema, req, 'update_settings');
    const fileSource: SettingSource = source === 'localSettings' ? 'local' : 'user';
    if (!deps.sources.includes(fileSource))
      throw new Error(
        `update_settings: ${source} is not loaded in this session (--setting-sources excludes ${fileSource})`,
      );
    const allowed = source === 'localSettings' ? ['outputStyle'] : ['effortLevel'];
    const bad = Object.keys(settings).filter((k) => !allowed.includes(k));
    if (bad.length)
      throw new Error(
        `update_settings: ${bad.join(', ')} cannot be written to ${source} (allowed: ${allowed.join(', ')})`,
      );
    for (const [k, v] of Object.entries(settings))
      if (typeof v !== 'string') throw new Error(`update_settings: ${k} must be a string`);
    const file = deps.paths[fileSource];
    const existing = readJsonObject(file);
    if (source === 'localSettings') {
      const style = settings.outputStyle as string | undefined;
      if (style !== undefined && !deps.outputStyles.names().includes(style))
        throw new Error(
          `update_settings: no output style "${style}" (there are: ${deps.outputStyles.names().join(', ')})`,
        );
      Object.assign(existing, settings);
    } else if (settings.effortLevel !== undefined) {
      const level = settings.effortLevel as string;
      if (level === 'max')
        throw new Error(
          'update_settings: effortLevel "max" is session-only and is not written; send apply_flag_settings for the running session',
        );
      if (!(EFFORT_LEVELS as readonly string[]).includes(level))
        throw new Error(
          `update_settings: effortLevel must be one of ${EFFORT_LEVELS.filter((l) => l !== 'max').join(', ')}`,
        );
      // Saved as the default for the session's model (what a later session without --effort takes).
      const modelSettings = isObject(existing.modelSettings) ? existing.modelSettings : {};
      const forModel = isObject(modelSettings[deps.currentModel()])
        ? (modelSettings[deps.currentModel()] as Record<string, unknown>)
        : {};
      modelSettings[deps.currentModel()] = { ...forModel, effortLevel: level };
      existing.modelSettings = modelSettings;
    }
    writeAtomically(file, `${JSON.stringify(existing, null, 2)}\n`);
    // Live-applied once written, as the reference's /config does: the next turn's system prompt has it.
    if (source === 'localSettings' && typeof settings.outputStyle === 'string')
      deps.outputStyles.use(settings.outputStyle);
    return {};
  });
}

/** A saved default effort for this model (update_settings userSettings), if any. */
export function savedEffort(settings: Settings, model: string): string | undefined {
  const ms = (settings as Record<string, unknown>).modelSettings;
  const forModel = isObject(ms) ? ms[model] : undefined;
  const level = isObject(forModel) ? forModel.effortLevel : undefined;
  return typeof level === 'string' ? level : undefined;
}

/** null deletes a key (the SDK's `Settings[K] | null`); objects merge key by key. */
function mergeLayer(low: Record<string, unknown>, high: Record<string, unknown>): Record<string, unknown> {
  const out = { ...low };
  for (const [k, v] of Object.entries(high)) {
    if (v === null) delete out[k];
    else out[k] = isObject(out[k]) && isObject(v) ? mergeLayer(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

function modeChange(before: LoadedSettings, after: LoadedSettings, state: PermissionState): PermissionMode | undefined {
  const next = after.permissions.defaultMode;
  if (next === undefined || next === before.permissions.defaultMode) return undefined;
  return validatePermissionMode(next, { allowBypass: state.allowBypass, source: 'apply_flag_settings' });
}

/** Rules that came from settings follow the new settings; the command line's and the session's own stay. */
function syncRules(deps: SettingsControlDeps, before: LoadedSettings, after: LoadedSettings): void {
  const keep = { allow: deps.cliRules.allow, deny: deps.cliRules.deny, ask: [] as string[] };
  for (const behavior of ['allow', 'deny', 'ask'] as const) {
    const old = new Set(before.permissions[behavior]);
    const now = new Set(after.permissions[behavior]);
    for (const r of old)
      if (!now.has(r) && !keep[behavior].includes(r)) deps.permissions.removeRule(behavior, parseRule(r));
    for (const r of now) if (!old.has(r)) deps.permissions.addRule(behavior, parseRule(r));
  }
  const oldDirs = new Set(before.permissions.additionalDirectories);
  const newDirs = new Set(after.permissions.additionalDirectories);
  for (const d of oldDirs) if (!newDirs.has(d) && !deps.cliRules.dirs.includes(d)) deps.permissions.removeDirectory(d);
  for (const d of newDirs) if (!oldDirs.has(d)) deps.permissions.addDirectory(d);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function readJsonObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`update_settings: ${file} cannot be read (${(err as Error).message})`);
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`update_settings: ${file} is not valid JSON; it was left as it is`);
  }
  if (!isObject(value)) throw new Error(`update_settings: ${file} is not a JSON object; it was left as it is`);
  return value;
}

/** Temp file in the same folder, then rename: a reader sees the old file or the new, never half. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new Error(`update_settings: cannot write ${file} (${(err as Error).message})`);
  }
}
