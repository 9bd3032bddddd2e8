// The Bash sandbox (sandbox.enabled): checked for real before any prompt runs; never a silent "on".
// Once running, it follows the session's rules and directories as they change.
import { configDir } from '../util/configDir.js';
import type { CommandSandbox } from '../../tools/sandbox.js';
import { mergeSandboxSettings, SandboxStartupError, sessionLimits, setupSandbox } from '../sandbox/index.js';
import { type Guards, StartupError } from '../session/guards.js';
import { logWarning } from '../util/log.js';

/** Undefined when the settings do not turn it on; throws StartupError (1) when it cannot start. */
export async function startSandbox(
  guards: Guards,
  ctx: { cwd: string; env: NodeJS.ProcessEnv; scratchDir: string },
): Promise<CommandSandbox | undefined> {
  try {
    const sandbox = await setupSandbox({
      settings: mergeSandboxSettings(guards.settingsFiles, ctx.cwd, configDir(ctx.env)),
      rules: guards.rules,
      cwd: ctx.cwd,
      workingDirs: guards.permissions.workingDirs.map((d) => d.real),
      scratchDir: ctx.scratchDir,
      warn: logWarning,
    });
    if (sandbox) {
      guards.permissions.sandbox = sandbox;
      // Rules and directories change mid-session (updatedPermissions, "always", apply_flag_settings, a worktree).
      guards.permissions.onChange(() => sandbox.follow(sessionLimits(guards.permissions)));
    }
    return sandbox;
  } catch (err) {
    if (!(err instanceof SandboxStartupError)) throw err;
    throw new StartupError(err.message, 1);
  }
}
