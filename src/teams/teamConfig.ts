// The team file, `<config>/teams/<team>/config.json`: who leads, who is in it, and how each member
// is doing. Rewritten atomically (temp file + rename) on every change, so a reader (a person, a
// status line, another process) never sees half of it.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
}

export interface TeamConfigFile {
  name: string;
  description?: string;
  createdAt: number;
  leadAgentId: string;
  leadSessionId: string;
  members: TeamMember[];
}

export const LEAD_NAME = 'team-lead';

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
