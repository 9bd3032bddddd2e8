export {
  setupSandbox,
  buildRuntimeConfig,
  SandboxStartupError,
  type SessionSandbox,
  type SandboxSetupOptions,
} from './runtime.js';
export {
  mergeSandboxSettings,
  rulesToSandbox,
  rulePathToSandboxPaths,
  isExcludedCommand,
  resolveSettingsPath,
  type MergedSandboxSettings,
} from './policy.js';
export { sandboxSettingsSchema, unsupportedSandboxKeys, type SandboxSettings } from '../settings/sandbox.js';
export {
  sessionLimits,
  linkedWorktreeGitDir,
  fitRuntimeConfig,
  createLiveLimits,
  type SessionLimits,
  type LiveLimits,
} from './liveLimits.js';
