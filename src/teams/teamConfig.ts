// The team file, `<config>/teams/<team>/config.json`: who leads, who is in it, and how each member
// is doing. Rewritten atomically (temp file + rename) on every change, so a reader (a person, a
// status line, another process) never sees half of it.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import { configDir } from '../util/configDir.js';

export type MemberStatus = 'working' | 'idle' | 'stopped' | 'shutdown' | 'failed';

export interface TeamMember {
  name: string;
  agentId: string;
  agentType: string;
  status: MemberStatus;
  /** The tool_use that spawned it (its messages carry it as parent_tool_use_id). */
  toolUseId: string;
  joinedAt: number;
  lastActivity: number;
  /**
   * A teammate that is its own process: its pane and `tmux` (the reference's), or "" and `detached`
   * (ours: the reference has no process teammate without a pane).
   */
  tmuxPaneId?: string;
  backendType?: 'tmux' | 'detached';
}

/** The lead's own entry, first in `members`, in the reference's shape. */
export interface LeadMember {
  agentId: string;
  name: string;
  agentType: string;
  joinedAt: number;
  tmuxPaneId: string;
  cwd: string;
  subscriptions: string[];
  backendType: 'in-process';
}

export interface TeamConfigFile {
  name: string;
  description?: string;
  createdAt: number;
  leadAgentId: string;
  leadSessionId: string;
  members: Array<LeadMember | TeamMember>;
}

/** The name this runtime gives its own lead; a team file made by another program may name another. */
export const LEAD_NAME = 'team-lead';

export function leadMember(name: string, teamName: string, cwd: string, joinedAt: number): LeadMember {
  return {
    agentId: `${name}@${teamName}`,
    name,
    agentType: name,
    joinedAt,
    tmuxPaneId: 'leader',
    cwd,
    subscriptions: [],
    backendType: 'in-process',
  };
}

/** What a reader of another program's team file relies on; the rest is kept as it is. */
const teamFileSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().optional(),
    leadAgentId: z.string().min(1),
    leadSessionId: z.string().optional(),
    members: z.array(z.looseObject({ name: z.string(), agentId: z.string().optional() })).default([]),
  }),
);
export type TeamFile = z.infer<typeof teamFileSchema>;

/** The lead's name: `leadAgentId` is `name@team`, never assumed to be "team-lead". */
export function leadNameOf(file: { leadAgentId: string }): string {
  const at = file.leadAgentId.lastIndexOf('@');
  return at > 0 ? file.leadAgentId.slice(0, at) : file.leadAgentId;
}

/** A team file read and checked; throws with what is wrong and where. */
export function readTeamFile(dir: string): TeamFile {
  const file = join(dir, 'config.json');
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `no team file at ${file}` : `cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`${file} is not JSON: ${(err as Error).message}`);
  }
  const checked = teamFileSchema.safeParse(parsed);
  if (!checked.success)
    throw new Error(
      `${file} is not a team file: ${checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return checked.data;
}

export function teamsDir(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'teams');
}

/** Team names become directory names: a safe alphabet only. */
export function teamDirName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '-');
}

export function writeTeamConfig(dir: string, cfg: TeamConfigFile): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'config.json');
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(cfg, null, 2), { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
