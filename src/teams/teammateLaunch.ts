// How a lead in teammate mode tmux or detached starts a teammate process: this very program (bin/agent,
// run as itself), the teammate flags, and the lead's flags that shape how an agent
// works (model, permissions, settings, agents, directories, MCP servers), so a process teammate
// behaves as an in-process one would. The environment travels apart (src/teams/paneEnv.ts); where
// the process runs is the starter's business (src/teams/teammateStarter.ts).
import { accessSync, constants } from 'node:fs';
import { basename } from 'node:path';
import { detachedStarter } from './detachedTeammates.js';
import { paneStarter, type TeammateStarter } from './teammateStarter.js';
import { tmuxPaneHost } from './tmuxPanes.js';

/** The lead's options a teammate shares (the CLI's options satisfy it; teams do not import the CLI). */
export interface LeadFlags {
  model?: string;
  fallbackModel?: string;
  permissionMode?: string;
  dangerouslySkipPermissions: boolean;
  allowDangerouslySkipPermissions: boolean;
  allowedTools: string[];
  disallowedTools: string[];
  settings?: string;
  settingSources?: string;
  projectConfigRoot?: string;
  agents?: string;
  addDir: string[];
  mcpConfig: string[];
  strictMcpConfig: boolean;
}

export interface TeammateLaunch {
  /** A tmux pane each, or a detached process each. */
  starter: TeammateStarter;
  /** The program: this binary run as itself, or `process.execPath` and its path. */
  command: string[];
  /** The lead's flags every teammate gets. */
  leadArgs: string[];
  /** The lead's environment, handed to each teammate through a private file. */
  env: NodeJS.ProcessEnv;
}

export function leadArgsForTeammates(o: LeadFlags): string[] {
  const args: string[] = [];
  const one = (flag: string, v: string | undefined) => {
    if (v !== undefined) args.push(flag, v);
  };
  one('--model', o.model);
  one('--fallback-model', o.fallbackModel);
  one('--permission-mode', o.permissionMode);
  if (o.dangerouslySkipPermissions) args.push('--dangerously-skip-permissions');
  if (o.allowDangerouslySkipPermissions) args.push('--allow-dangerously-skip-permissions');
  for (const r of o.allowedTools) args.push('--allowedTools', r);
  for (const r of o.disallowedTools) args.push('--disallowedTools', r);
  one('--settings', o.settings);
  one('--setting-sources', o.settingSources);
  one('--project-config-root', o.projectConfigRoot);
  one('--agents', o.agents);
  for (const d of o.addDir) args.push('--add-dir', d);
  for (const c of o.mcpConfig) args.push('--mcp-config', c);
  if (o.strictMcpConfig) args.push('--strict-mcp-config');
  return args;
}

export function teammateLaunch(backend: 'tmux' | 'detached', o: LeadFlags, env: NodeJS.ProcessEnv): TeammateLaunch {
  return {
    starter: backend === 'tmux' ? paneStarter(tmuxPaneHost(env)) : detachedStarter(),
    command: teammateCommand(process.argv[1] ?? ''),
    leadArgs: leadArgsForTeammates(o),
    env,
  };
}

/**
 * `bin/agent` run as itself when it can be, so a teammate starts as any start does (its shell lines:
 * the start-up snapshot, huge pages, NODE_EXTRA_CA_CERTS read late); `node bin/agent`, which skips
 * them, only when the file cannot be executed (a copy without its mode bits).
 */
export function teammateCommand(self: string): string[] {
  try {
    accessSync(self, constants.X_OK);
    if (basename(self) === 'agent') return [self];
  } catch {
    // not executable: run it with this Node
  }
  return [process.execPath, self];
}
