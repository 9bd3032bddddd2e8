// The permission system's public face: what the CLI, the runner and the tool pipeline call.
export { parseRule, formatRule, RuleSyntaxError, type PermissionRule, type RuleBehavior } from './rules.js';
export {
  PERMISSION_MODES,
  PermissionConfigError,
  isPermissionMode,
  permissionModeSchema,
  validatePermissionMode,
  type PermissionMode,
} from './modes.js';
export {
  createPermissionState,
  PermissionState,
  type PermissionStateOptions,
  type BashSandboxPolicy,
} from './state.js';
export {
  decidePermission,
  type AskReasonType,
  type HookPermissionDecision,
  type PermissionDecision,
  type PermissionRequest,
} from './decision.js';
export { permissionUpdateSchema, type PermissionUpdate } from './updates.js';
export { parseBashCommand } from '../util/shellCommand.js';
export { resolvePath, isWithin } from './paths.js';
