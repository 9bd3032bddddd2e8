// The per-session facts the default system prompt carries, gathered once at start: the
// environment and persistent memory. The memory folder is also opened to the file tools.
import type { PermissionState } from '../permissions/index.js';
import { workingDir } from '../permissions/paths.js';
import type { LoadedFile } from '../settings/load.js';
import { type AutoMemory, setupAutoMemory } from './autoMemory.js';
import { type EnvironmentFacts, environmentFacts } from './environment.js';
import { logWarning } from '../util/log.js';

export function setupSessionPrompt(o: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  files: LoadedFile[];
  permissions: PermissionState;
  warn?: (message: string) => void;
}): { environment: EnvironmentFacts; autoMemory?: AutoMemory } {
  const environment = environmentFacts(o.cwd);
  const autoMemory = setupAutoMemory({
    cwd: o.cwd,
    env: o.env,
    git: environment.git,
    files: o.files,
    warn: o.warn ?? ((m) => logWarning(`memory: ${m}`)),
  });
  if (autoMemory) o.permissions.memoryDir = workingDir(autoMemory.dir, o.cwd);
  return { environment, ...(autoMemory ? { autoMemory } : {}) };
}
