export {
  loadSettings,
  mergeSettings,
  parseSettingsText,
  settingsPaths,
  managedSettingsPath,
  projectRootOf,
  SettingsError,
  ALL_SOURCES,
  type LoadedSettings,
  type LoadedFile,
  type LoadSettingsOptions,
  type SettingSource,
} from './load.js';
export {
  settingsSchema,
  hooksSettingsSchema,
  type Settings,
  type HooksSettings,
  type HookMatcherConfig,
  type CommandHookConfig,
} from './schema.js';
export { applySettingsEnv } from './env.js';
