// Permission modes and the start-up check that guards bypassPermissions.
import { z } from 'zod';

export const permissionModeSchema = z.enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']);
export type PermissionMode = z.infer<typeof permissionModeSchema>;
export const PERMISSION_MODES = permissionModeSchema.options;

export class PermissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionConfigError';
  }
}

/**
 * Whether `--permission-mode bypassPermissions` may be chosen on its own, without an opt-in flag:
 * the reference's rule (measured on 2.1.330): yes, except for root outside a deliberate sandbox
 * (IS_SANDBOX=1, or CLAUDE_CODE_BUBBLEWRAP set), where it refuses.
 */
export function bypassAloneAllowed(env: NodeJS.ProcessEnv, uid = process.getuid?.()): boolean {
  return uid !== 0 || env.IS_SANDBOX === '1' || !!env.CLAUDE_CODE_BUBBLEWRAP;
}

export function isPermissionMode(value: unknown): value is PermissionMode {
  return permissionModeSchema.safeParse(value).success;
}

/**
 * Checks a mode given by a flag, a setting or a control request. bypassPermissions turns every
 * check but deny rules off, so it needs an explicit opt-in flag; without one the run must not
 * start (or the mode change is refused).
 */
export function validatePermissionMode(mode: unknown, opts: { allowBypass: boolean; source?: string }): PermissionMode {
  const where = opts.source ? `${opts.source}: ` : '';
  if (!isPermissionMode(mode)) {
    throw new PermissionConfigError(
      `${where}unknown permission mode ${JSON.stringify(mode)} (expected one of: ${PERMISSION_MODES.join(', ')})`,
    );
  }
  if (mode === 'bypassPermissions' && !opts.allowBypass) {
    throw new PermissionConfigError(
      `${where}permission mode bypassPermissions needs --dangerously-skip-permissions or --allow-dangerously-skip-permissions`,
    );
  }
  return mode;
}
