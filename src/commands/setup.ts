// The session's slash commands: the markdown ones of the setting sources in use (user, project)
// and the built-ins, acting on the running session.
import { join } from 'node:path';
import { loadCommandDir, type MarkdownCommand } from './markdownCommands.js';
import { SlashCommands, type SessionView } from './slashCommands.js';
import { commandIO } from './sessionIO.js';
import type { PermissionState } from '../permissions/index.js';
import type { Tool } from '../../tools/tool.js';
import { configDir } from '../util/configDir.js';
import { logWarning } from '../util/log.js';

export interface CommandSetupOptions {
  cwd: string;
  /** Where project config lives (default cwd). */
  projectRoot?: string;
  env: NodeJS.ProcessEnv;
  /** The setting sources in use: commands come from `user` and `project`. */
  sources: string[];
  /** The session's tools: Bash and Read decide like the tools they stand for. */
  tools: () => Tool[];
  permissions: () => PermissionState;
  session: SessionView;
}

export async function loadCommands(
  o: Omit<CommandSetupOptions, 'permissions' | 'session' | 'tools'>,
): Promise<MarkdownCommand[]> {
  const out: MarkdownCommand[] = [];
  const from = async (dir: string, source: 'user' | 'project') => {
    const { commands, problems } = await loadCommandDir(dir, source);
    for (const p of problems) logWarning(`${p.file}: ${p.problem}; the command was skipped`);
    // A project command shadows a user command of the same name.
    for (const c of commands) {
      const i = out.findIndex((x) => x.name === c.name);
      if (i >= 0) out.splice(i, 1);
      out.push(c);
    }
  };
  if (o.sources.includes('user')) await from(join(configDir(o.env), 'commands'), 'user');
  if (o.sources.includes('project')) await from(join(o.projectRoot ?? o.cwd, '.claude', 'commands'), 'project');
  return out;
}

export async function setupCommands(o: CommandSetupOptions): Promise<SlashCommands> {
  return new SlashCommands(
    await loadCommands(o),
    commandIO({ cwd: o.cwd, tools: o.tools, permissions: o.permissions }),
    o.session,
  );
}
